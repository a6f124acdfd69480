//===- LossScaler.cpp - fp16's dynamic loss scale ---------------------------===//
#include "mt/Runtime/Training/LossScaler.h"

#include <algorithm>

namespace mt {

bool LossScaler::update(bool overflowed) {
  if (window_ == 0)
    return false; // a constant scale
  if (overflowed) {
    goodSteps_ = 0;
    if (--overflowsLeft_ > 0)
      return true; // tolerated: the next overflow lowers the scale
    double lower = std::max(scale_ / 2, minScale_);
    bool lowered = lower < scale_;
    scale_ = lower;
    overflowsLeft_ = hysteresis_;
    return lowered;
  }
  if (++goodSteps_ == window_) {
    goodSteps_ = 0;
    overflowsLeft_ = hysteresis_;
    scale_ *= 2;
  }
  return false;
}

} // namespace mt
