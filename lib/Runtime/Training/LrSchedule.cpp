//===- LrSchedule.cpp - Megatron's learning-rate schedule ------------------===//
#include "mt/Runtime/Training/LrSchedule.h"

#include <cmath>

namespace mt {

double LrSchedule::at(int64_t step) const {
  if (warmupIters > 0 && step <= warmupIters)
    return maxLr * static_cast<double>(step) / static_cast<double>(warmupIters);
  if (style == Decay::Constant)
    return maxLr;
  if (step > decayIters)
    return minLr;
  double span = static_cast<double>(decayIters - warmupIters);
  double ratio = span > 0 ? static_cast<double>(step - warmupIters) / span : 1.0;
  double coeff = style == Decay::Linear ? 1.0 - ratio : 0.5 * (std::cos(M_PI * ratio) + 1.0);
  return minLr + coeff * (maxLr - minLr);
}

} // namespace mt
