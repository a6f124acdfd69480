//===- TrainerInternals.h - what the Trainer's files share ------*- C++ -*-===//
#ifndef MT_LIB_RUNTIME_TRAINERINTERNALS_H
#define MT_LIB_RUNTIME_TRAINERINTERNALS_H

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Communicator.h"
#include "mt/Runtime/CpuModule.h"

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

inline double readScalar(Buffer &b, plan::DType t, int64_t i) {
  return t == plan::F64 ? b.as<double>()[i] : b.as<float>()[i];
}

inline ElementType commType(plan::DType t) {
  return t == plan::F64 ? ElementType::F64 : ElementType::F32;
}

} // namespace trainer
} // namespace mt

#endif // MT_LIB_RUNTIME_TRAINERINTERNALS_H
