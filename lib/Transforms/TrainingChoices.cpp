//===- TrainingChoices.cpp - the training pipeline's closed choices --------===//
#include "mt/Transforms/TrainingChoices.h"

#include "llvm/Support/CommandLine.h"

#include <initializer_list>

namespace mt {
namespace {

/// A choice's name, from the table the command line declares it with (one
/// list of names per choice, MT_*_VALUES).
template <typename E>
llvm::StringRef nameIn(std::initializer_list<llvm::cl::OptionEnumValue> values, E value) {
  for (const llvm::cl::OptionEnumValue &v : values)
    if (v.Value == static_cast<int>(value))
      return v.Name;
  return "?";
}

} // namespace

llvm::StringRef nameOf(TargetKind target) { return nameIn({MT_TARGET_KIND_VALUES}, target); }
llvm::StringRef nameOf(ActivationType type) { return nameIn({MT_ACTIVATION_TYPE_VALUES}, type); }
llvm::StringRef nameOf(FuseAttention fuse) { return nameIn({MT_FUSE_ATTENTION_VALUES}, fuse); }
llvm::StringRef nameOf(GpuAttention attention) {
  return nameIn({MT_GPU_ATTENTION_VALUES}, attention);
}
llvm::StringRef nameOf(RecomputeGranularity granularity) {
  return nameIn({MT_RECOMPUTE_GRANULARITY_VALUES}, granularity);
}
llvm::StringRef nameOf(RecomputeMethod method) {
  return nameIn({MT_RECOMPUTE_METHOD_VALUES}, method);
}

} // namespace mt
