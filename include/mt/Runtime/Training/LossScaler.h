//===- LossScaler.h - fp16's dynamic loss scale ------------------*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINING_LOSSSCALER_H
#define MT_RUNTIME_TRAINING_LOSSSCALER_H

#include <cstdint>

namespace mt {

/// Megatron's dynamic grad scaler: the backward starts from `scale()`; a
/// step whose gradients overflow is skipped, and after `hysteresis`
/// overflows the scale halves (not below `minScale`); after `window` steps
/// in a row without one it doubles. `window` 0: a constant scale.
class LossScaler {
public:
  LossScaler(double initialScale, double minScale, int64_t window, int64_t hysteresis)
      : scale_(initialScale), minScale_(minScale), window_(window), hysteresis_(hysteresis),
        overflowsLeft_(hysteresis) {}

  double scale() const { return scale_; }

  /// What the scaler carries from one step to the next (for checkpoints).
  struct State {
    double scale = 0;
    int64_t goodSteps = 0, overflowsLeft = 0;
  };
  State state() const { return {scale_, goodSteps_, overflowsLeft_}; }
  void restore(const State &s) {
    scale_ = s.scale;
    goodSteps_ = s.goodSteps;
    overflowsLeft_ = s.overflowsLeft;
  }

  /// Records a step; `overflowed`: its gradients were not finite while its
  /// loss was. Returns whether the overflow is one the scale answers (the
  /// scale will be or was lowered), as opposed to one at the floor, which
  /// means the run diverges.
  bool update(bool overflowed);

private:
  double scale_, minScale_;
  int64_t window_, hysteresis_;
  int64_t goodSteps_ = 0, overflowsLeft_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_LOSSSCALER_H
