//===- FusionFlags.cpp - mtc's kernel fusion flags -------------------------===//
#include "FusionFlags.h"

#include "mt/Pipelines/Pipelines.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<bool> fuseBiasGelu(
    "fuse-bias-gelu",
    cl::desc("add a linear's bias inside the GeLU after it, one kernel each way (default on; "
             "--fuse-bias-gelu=false keeps them apart)"),
    cl::init(mt::TrainingDefaults::fuseBiasGelu));

static cl::opt<bool> fuseBiasDropoutAdd(
    "fuse-bias-dropout-add",
    cl::desc("bias add, dropout and residual add in one kernel each way (default on; not with "
             "--dropout-masks=stored)"),
    cl::init(mt::TrainingDefaults::fuseBiasDropoutAdd));

static cl::opt<bool> fuseAddLayerNorm(
    "fuse-add-layer-norm",
    cl::desc("a residual add and the layer norm of its sum in one kernel each way (default "
             "on)"),
    cl::init(mt::TrainingDefaults::fuseAddLayerNorm));

static cl::opt<bool> fuseGradientAccumulation(
    "fuse-gradient-accumulation",
    cl::desc("the step adds each gradient into its fp32 accumulator where it is made: weight-"
             "gradient GEMMs accumulate into it (default on)"),
    cl::init(mt::TrainingDefaults::fuseGradientAccumulation));

enum class FuseAttention { Auto, True, False };
static cl::opt<FuseAttention> fuseAttention(
    "fuse-attention",
    cl::desc("scores, softmax, dropout and context in one kernel each way (FlashAttention: no "
             "score matrix is kept); auto fuses where it is faster"),
    cl::values(clEnumValN(FuseAttention::Auto, "auto",
                          "where the fused kernels are faster: f32/f64 attention on the CPU "
                          "(1.1-1.7x the unfused step, docs/benchmarks.md); not 16-bit or GPU"),
               clEnumValN(FuseAttention::True, "true", "every attention that can be"),
               clEnumValN(FuseAttention::False, "false", "none (the scores are materialized)")),
    cl::init(llvm::StringRef(mt::TrainingDefaults::fuseAttention) == "auto"   ? FuseAttention::Auto
             : llvm::StringRef(mt::TrainingDefaults::fuseAttention) == "true" ? FuseAttention::True
                                                                              : FuseAttention::False));

bool applyFusionFlags(mt::CompileSettings &settings, std::string &error) {
  settings.fuseBiasGelu = fuseBiasGelu;
  settings.fuseBiasDropoutAdd = fuseBiasDropoutAdd;
  settings.fuseAddLayerNorm = fuseAddLayerNorm;
  settings.fuseGradientAccumulation = fuseGradientAccumulation;
  settings.fuseAttention = fuseAttention == FuseAttention::Auto   ? "auto"
                           : fuseAttention == FuseAttention::True ? "true"
                                                                  : "false";
  return true;
}
