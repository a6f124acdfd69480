//===- TrainerInternals.h - what the trainer's parts share ------*- C++ -*-===//
#ifndef MT_LIB_RUNTIME_TRAINING_TRAINERINTERNALS_H
#define MT_LIB_RUNTIME_TRAINING_TRAINERINTERNALS_H

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Comm/Communicator.h"

#include "plan.pb.h"

namespace mt {
namespace trainer {

/// Pipeline message channels: activations k -> k+1 on 2k, their gradients
/// k+1 -> k on 2k+1; evaluation and gathering use their own.
inline int activationChannel(int64_t boundary) { return static_cast<int>(2 * boundary); }
inline int gradientChannel(int64_t boundary) { return static_cast<int>(2 * boundary + 1); }
inline constexpr int kEvalChannelBase = 1 << 20;
inline constexpr int kGatherChannel = (1 << 21);
inline constexpr int kTimelineChannel = (1 << 21) + 1;

/// How a floating-point buffer of plan type `t` crosses to another rank
/// (f32 or f64 for gradients; a stage's activations may be 16-bit).
inline ElementType commType(plan::DType t) {
  return t == plan::F64 ? ElementType::F64 : ElementType::F32;
}
inline ElementType stageElementType(plan::DType t) {
  switch (t) {
  case plan::F64:
    return ElementType::F64;
  case plan::BF16:
    return ElementType::BF16;
  case plan::F16:
    return ElementType::F16;
  default:
    return ElementType::F32;
  }
}

} // namespace trainer
} // namespace mt

#endif // MT_LIB_RUNTIME_TRAINING_TRAINERINTERNALS_H
