//===- FusionFlags.cpp - mtc's kernel fusion flags -------------------------===//
#include "FusionFlags.h"

#include "mt/Pipelines/Pipelines.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;

cl::OptionCategory &fusionCategory() {
  static cl::OptionCategory category("kernel fusion and overlap");
  return category;
}

static cl::opt<bool> fuseBiasGelu(
    "fuse-bias-gelu",
    cl::desc("add a linear's bias inside the GeLU after it, one kernel each way (default on; "
             "--fuse-bias-gelu=false keeps them apart)"),
    cl::init(mt::TrainingDefaults::fuseBiasGelu), cl::cat(fusionCategory()));

static cl::opt<bool> fuseBiasDropoutAdd(
    "fuse-bias-dropout-add",
    cl::desc("bias add, dropout and residual add in one kernel each way (default on; not with "
             "--dropout-masks=stored)"),
    cl::init(mt::TrainingDefaults::fuseBiasDropoutAdd), cl::cat(fusionCategory()));

static cl::opt<bool> fuseAddLayerNorm(
    "fuse-add-layer-norm",
    cl::desc("a residual add and the layer norm of its sum in one kernel each way (default "
             "on)"),
    cl::init(mt::TrainingDefaults::fuseAddLayerNorm), cl::cat(fusionCategory()));

static cl::opt<bool> fuseCrossEntropy(
    "fuse-cross-entropy",
    cl::desc("the loss and its logits' gradient in one pass over the logits, read and written "
             "in the activations' type (default on)"),
    cl::init(mt::TrainingDefaults::fuseCrossEntropy), cl::cat(fusionCategory()));

static cl::opt<bool> fuseGradientAccumulation(
    "fuse-gradient-accumulation",
    cl::desc("the step adds each gradient into its fp32 accumulator where it is made: weight-"
             "gradient GEMMs accumulate into it (default on)"),
    cl::init(mt::TrainingDefaults::fuseGradientAccumulation), cl::cat(fusionCategory()));

static cl::opt<mt::FuseAttention> fuseAttention(
    "fuse-attention",
    cl::desc("scores, softmax, dropout and context in one kernel each way (FlashAttention: no "
             "score matrix is kept); auto fuses where it is faster"),
    cl::values(MT_FUSE_ATTENTION_VALUES), cl::init(mt::TrainingDefaults::fuseAttention),
    cl::cat(fusionCategory()));

static cl::opt<mt::GpuAttention> gpuAttention(
    "gpu-attention",
    cl::desc("GPU and emulated plans: attention's kernels, where --fuse-attention is auto "
             "(default unfused: cuBLAS and separate kernels)"),
    cl::values(MT_GPU_ATTENTION_VALUES), cl::init(mt::TrainingDefaults::gpuAttention),
    cl::cat(fusionCategory()));

bool applyFusionFlags(mt::CompileSettings &settings, std::string &error) {
  settings.fuseBiasGelu = fuseBiasGelu;
  settings.fuseBiasDropoutAdd = fuseBiasDropoutAdd;
  settings.fuseAddLayerNorm = fuseAddLayerNorm;
  settings.fuseCrossEntropy = fuseCrossEntropy;
  settings.fuseGradientAccumulation = fuseGradientAccumulation;
  settings.fuseAttention = fuseAttention;
  settings.gpuAttention = gpuAttention;
  return true;
}
