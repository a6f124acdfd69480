//===- TrainingChoices.cpp - the training pipeline's closed choices --------===//
#include "mt/Pipelines/TrainingChoices.h"

namespace mt {

llvm::StringRef nameOf(TargetKind target) {
  switch (target) {
  case TargetKind::Cpu:
    return "cpu";
  case TargetKind::Cuda:
    return "cuda";
  case TargetKind::EmulatedGpu:
    return "emulated-gpu";
  }
  return "?";
}

llvm::StringRef nameOf(ActivationType type) {
  switch (type) {
  case ActivationType::F32:
    return "f32";
  case ActivationType::BF16:
    return "bf16";
  case ActivationType::F16:
    return "f16";
  }
  return "?";
}

llvm::StringRef nameOf(FuseAttention fuse) {
  switch (fuse) {
  case FuseAttention::Auto:
    return "auto";
  case FuseAttention::On:
    return "true";
  case FuseAttention::Off:
    return "false";
  }
  return "?";
}

llvm::StringRef nameOf(RecomputeGranularity granularity) {
  switch (granularity) {
  case RecomputeGranularity::None:
    return "none";
  case RecomputeGranularity::Selective:
    return "selective";
  case RecomputeGranularity::Full:
    return "full";
  case RecomputeGranularity::Auto:
    return "auto";
  }
  return "?";
}

llvm::StringRef nameOf(RecomputeMethod method) {
  return method == RecomputeMethod::Block ? "block" : "uniform";
}

} // namespace mt
