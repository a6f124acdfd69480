//===- TrainingChoices.h - the training pipeline's closed choices -*- C++ -*-===//
//
// The options of the training compile that pick one of a few values, as
// enums. mtc's flags and the mt-training-step pipeline's options take the
// same values under the same names (the MT_*_VALUES lists below, for
// llvm::cl::values), so a setting never passes through a string between
// the command line and the passes that read it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_TRANSFORMS_TRAININGCHOICES_H
#define MT_TRANSFORMS_TRAININGCHOICES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace mt {

/// Where the plan's code runs; the pipeline's target-dependent defaults
/// follow it (resolveForTarget).
enum class TargetKind { Cpu, Cuda, EmulatedGpu };
#define MT_TARGET_KIND_VALUES                                                                      \
  clEnumValN(::mt::TargetKind::Cpu, "cpu", "x86 code"),                                            \
      clEnumValN(::mt::TargetKind::Cuda, "cuda", "PTX and cubins, cuBLAS"),                        \
      clEnumValN(::mt::TargetKind::EmulatedGpu, "emulated-gpu",                                    \
                 "the GPU's kernels run on the CPU (--emulate-gpu-kernels)")

/// The activations' element type: the model as written, or 16 bits with
/// fp32 parameters and loss (mt-cast-activations).
enum class ActivationType { F32, BF16, F16 };
#define MT_ACTIVATION_TYPE_VALUES                                                                  \
  clEnumValN(::mt::ActivationType::F32, "f32", "the model as written"),                            \
      clEnumValN(::mt::ActivationType::BF16, "bf16",                                               \
                 "bf16 activations, fp32 parameters and loss"),                                    \
      clEnumValN(::mt::ActivationType::F16, "f16",                                                 \
                 "f16 activations, fp32 parameters and loss, a loss scale")

/// mt-fuse-attention: where attention becomes one kernel each way.
enum class FuseAttention { Auto, On, Off };
#define MT_FUSE_ATTENTION_VALUES                                                                   \
  clEnumValN(::mt::FuseAttention::Auto, "auto",                                                    \
             "where the fused kernels are faster: f32/f64 attention on the CPU (1.1-1.7x the "     \
             "unfused step, docs/benchmarks.md); not 16-bit or GPU"),                              \
      clEnumValN(::mt::FuseAttention::On, "true", "every attention that can be"),                  \
      clEnumValN(::mt::FuseAttention::Off, "false", "none (the scores are materialized)")

/// Attention in GPU plans (and emulated ones): which kernels.
enum class GpuAttention { Unfused, Rows, Mma };
#define MT_GPU_ATTENTION_VALUES                                                                    \
  clEnumValN(::mt::GpuAttention::Unfused, "unfused",                                               \
             "scores, softmax, dropout and context as separate kernels, the products on cuBLAS"),  \
      clEnumValN(::mt::GpuAttention::Rows, "rows",                                                 \
                 "fused, a GPU thread per query row (no tensor cores)"),                           \
      clEnumValN(::mt::GpuAttention::Mma, "mma",                                                   \
                 "fused where 16-bit shapes allow it, the forward on tensor cores (mma.sync "      \
                 "warp tasks); other attention unfused")

/// mt-recompute-activations: what the backward computes again.
enum class RecomputeGranularity { None, Selective, Full, Auto };
#define MT_RECOMPUTE_GRANULARITY_VALUES                                                            \
  clEnumValN(::mt::RecomputeGranularity::None, "none", "keep every activation"),                   \
      clEnumValN(::mt::RecomputeGranularity::Selective, "selective",                               \
                 "each layer's attention core"),                                                   \
      clEnumValN(::mt::RecomputeGranularity::Full, "full", "whole layers"),                        \
      clEnumValN(::mt::RecomputeGranularity::Auto, "auto",                                         \
                 "what fits the memory budget at the least added work")

/// Full recomputation: which layers.
enum class RecomputeMethod { Uniform, Block };
#define MT_RECOMPUTE_METHOD_VALUES                                                                 \
  clEnumValN(::mt::RecomputeMethod::Uniform, "uniform",                                            \
             "groups of --recompute-num-layers layers"),                                           \
      clEnumValN(::mt::RecomputeMethod::Block, "block",                                            \
                 "only the first --recompute-num-layers layers of each stage")

/// The names above, for pass options, messages and reports.
llvm::StringRef nameOf(TargetKind target);
llvm::StringRef nameOf(ActivationType type);
llvm::StringRef nameOf(FuseAttention fuse);
llvm::StringRef nameOf(GpuAttention attention);
llvm::StringRef nameOf(RecomputeGranularity granularity);
llvm::StringRef nameOf(RecomputeMethod method);

} // namespace mt

#endif // MT_TRANSFORMS_TRAININGCHOICES_H
