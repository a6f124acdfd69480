//===- LrSchedule.h - Megatron's learning-rate schedule --------*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINING_LRSCHEDULE_H
#define MT_RUNTIME_TRAINING_LRSCHEDULE_H

#include <cstdint>
#include <string>

namespace mt {

struct LrSchedule {
  double maxLr = 0, minLr = 0;
  int64_t warmupIters = 0, decayIters = 0;
  enum class Decay { Constant, Linear, Cosine };
  Decay style = Decay::Cosine;

  /// The rate of optimizer step `step` (1-based), as Megatron computes it:
  /// linear warm-up to maxLr over warmupIters steps, then decay to minLr at
  /// decayIters, minLr afterwards.
  double at(int64_t step) const;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_LRSCHEDULE_H
