//===- Pipelines.h - the pass pipelines mtc runs ---------------*- C++ -*-===//
//
// mtc is a thin driver over these pipelines; mt-opt registers the same ones,
// so `mt-opt --mt-frontend=...` replays exactly what mtc does, and
// `--mlir-print-ir-after-all` shows it pass by pass.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PIPELINES_PIPELINES_H
#define MT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mt/Transforms/TrainingChoices.h"

#include "mlir/Pass/PassOptions.h"

#include <limits>

namespace mt {

struct FrontendOptions : public mlir::PassPipelineOptions<FrontendOptions> {
  Option<int64_t> makeVocabSizeDivisibleBy{
      *this, "make-vocab-size-divisible-by",
      llvm::cl::desc("pad the vocabulary to a multiple of this (1: no padding)"),
      llvm::cl::init(1)};
  Option<int64_t> microBatchSize{*this, "micro-batch-size",
                                 llvm::cl::desc("sequences per micro-batch"), llvm::cl::init(1)};
  Option<int64_t> seqLength{
      *this, "seq-length",
      llvm::cl::desc("tokens per sequence (0: the model's position table size)"),
      llvm::cl::init(0)};
  Option<int64_t> decoderSeqLength{
      *this, "decoder-seq-length",
      llvm::cl::desc("tokens per decoder sequence (encoder-decoder models)"), llvm::cl::init(0)};
};

/// Checks the model and brings it to the compiler's canonical form: padded
/// vocabulary, static shapes.
void buildFrontendPipeline(mlir::OpPassManager &pm, const FrontendOptions &options);

struct InferenceOptions : public mlir::PassPipelineOptions<InferenceOptions> {
  Option<int64_t> makeVocabSizeDivisibleBy{
      *this, "make-vocab-size-divisible-by",
      llvm::cl::desc("pad the vocabulary to a multiple of this (1: no padding)"),
      llvm::cl::init(1)};
  Option<int64_t> batchSize{*this, "batch-size",
                            llvm::cl::desc("sequences generated at once (beams, prompts)"),
                            llvm::cl::init(1)};
  Option<int64_t> prefillLength{
      *this, "prefill-length",
      llvm::cl::desc("prompt tokens one prefill call takes (0: the KV cache's capacity)"),
      llvm::cl::init(0)};
  Option<int64_t> capacity{
      *this, "capacity",
      llvm::cl::desc("positions a KV cache holds (0: the position table's rows)"),
      llvm::cl::init(0)};
  Option<ActivationType> activationType{
      *this, "activation-type",
      llvm::cl::desc("the activations' element type (mt-cast-activations); parameters, caches "
                     "and logits stay f32"),
      llvm::cl::init(ActivationType::F32), llvm::cl::values(MT_ACTIVATION_TYPE_VALUES)};
  Option<int64_t> encoderLength{
      *this, "encoder-length", llvm::cl::desc("an encoder-decoder model's encoder sequence length"),
      llvm::cl::init(0)};
  Option<int64_t> tensorParallel{
      *this, "tensor-parallel",
      llvm::cl::desc("tensor-parallel ranks: the model is partitioned before the prefill and "
                     "decode are built (caches split by heads, logits gathered whole)"),
      llvm::cl::init(1)};
  Option<bool> allPrefillLogits{
      *this, "all-prefill-logits",
      llvm::cl::desc("the prefill returns every token's logits, not only the last prompt token's"),
      llvm::cl::init(false)};
};

/// The model as text generation runs it (mtc --inference): checked, padded,
/// unrolled, turned into prefill and decode functions over KV caches
/// (mt-build-inference), static shapes, fused.
void buildInferencePipeline(mlir::OpPassManager &pm, const InferenceOptions &options);

/// The defaults of the training pipeline's options, defined once: mtc's
/// flags and CompileSettings start from them, and so does TrainingOptions,
/// so `mt-opt --mt-training-step` without options replays mtc's default
/// compile (test/mtc/replay-default.test).
struct TrainingDefaults {
  static constexpr bool sequenceParallel = true; // with tp > 1
  static constexpr bool storeDropoutMasks = false;
  static constexpr bool recomputeAllGathers = true; // with sequence parallelism
  static constexpr bool overlapCollectives = true;  // with tp > 1 (resolveForTarget)
  static constexpr RecomputeGranularity recomputeGranularity = RecomputeGranularity::None;
  static constexpr RecomputeMethod recomputeMethod = RecomputeMethod::Uniform;
  static constexpr int64_t recomputeNumLayers = 1;
  static constexpr bool fuseBiasGelu = true;
  static constexpr bool fuseBiasDropoutAdd = true;
  static constexpr bool fuseAddLayerNorm = true;
  static constexpr bool fuseCrossEntropy = true;
  static constexpr ActivationType activationType = ActivationType::F32;
  static constexpr bool fuseGradientAccumulation = true;
  /// mt-fuse-attention (auto: where a query sees at least
  /// fuseAttentionAutoMinKeys keys). On the CPU in fp32 the tiled fused
  /// kernels (GEMMs of tiles, heads on the worker threads) beat the unfused
  /// ops at every length measured, 1.10x at seq 128 to 1.68x at 1024
  /// (2026-11-26, bench/fused-attention.sh), so auto fuses every attention
  /// there; resolveForTarget turns auto off for the GPU and for 16-bit
  /// activations, whose fused kernels are row kernels and slower.
  static constexpr FuseAttention fuseAttention = FuseAttention::Auto;
  /// GPU plans keep attention unfused (cuBLAS) until the tensor-core
  /// kernels (mma) are measured on a GPU (docs/attention-gpu-design.md).
  static constexpr GpuAttention gpuAttention = GpuAttention::Unfused;
  static constexpr TargetKind target = TargetKind::Cpu;
  static constexpr int64_t fuseAttentionAutoMinKeys = 0;
};

struct TrainingOptions : public mlir::PassPipelineOptions<TrainingOptions> {
  Option<TargetKind> target{*this, "target",
                            llvm::cl::desc("where the plan's code runs: the defaults that depend "
                                           "on it follow (resolveForTarget)"),
                            llvm::cl::init(TrainingDefaults::target),
                            llvm::cl::values(MT_TARGET_KIND_VALUES)};
  Option<int64_t> tensorParallel{*this, "tensor-parallel", llvm::cl::desc("tensor-parallel size"),
                                 llvm::cl::init(1)};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("with tensor parallelism, split norm/dropout/residual regions by sequence "
                     "(ignored without it)"),
      llvm::cl::init(TrainingDefaults::sequenceParallel)};
  Option<int64_t> pipelineStages{*this, "pipeline-stages", llvm::cl::desc("pipeline-parallel size"),
                                 llvm::cl::init(1)};
  Option<int64_t> virtualStages{*this, "virtual-stages",
                                llvm::cl::desc("model chunks per pipeline stage"),
                                llvm::cl::init(1)};
  Option<int64_t> pipelineSplitRank{
      *this, "pipeline-split-rank",
      llvm::cl::desc("encoder-decoder models: pipeline stages of the encoder (0: in proportion "
                     "to the layers)"),
      llvm::cl::init(0)};
  Option<int64_t> distributedOptimizerShards{
      *this, "distributed-optimizer-shards",
      llvm::cl::desc("ZeRO-1: shard the optimizer state over this many data-parallel ranks "
                     "(0: not distributed)"),
      llvm::cl::init(0)};
  Option<bool> signalGradientsReady{
      *this, "signal-gradients-ready",
      llvm::cl::desc("mark where each gradient accumulator is final in the step, so the runtime "
                     "can overlap its data-parallel all-reduce with the rest of the backward"),
      llvm::cl::init(false)};
  Option<bool> overlapCollectives{
      *this, "overlap-collectives",
      llvm::cl::desc("start all-gathers and reduce-scatters early and wait for them late, so "
                     "the runtime moves their data while independent GEMMs run"),
      llvm::cl::init(TrainingDefaults::overlapCollectives)};
  Option<bool> tpComm16Bit{
      *this, "tp-comm-16bit",
      llvm::cl::desc("16-bit activations: tensor/sequence-parallel collectives move and sum "
                     "them in 16 bits (Megatron) instead of fp32"),
      llvm::cl::init(false)};
  Option<bool> storeDropoutMasks{
      *this, "store-dropout-masks",
      llvm::cl::desc(
          "keep dropout masks for the backward (Megatron) instead of drawing them again"),
      llvm::cl::init(TrainingDefaults::storeDropoutMasks)};
  Option<bool> recomputeAllGathers{
      *this, "recompute-all-gathers",
      llvm::cl::desc("sequence parallelism: gather again in the backward instead of keeping "
                     "the gathered tensor (Megatron; ignored without sequence parallelism)"),
      llvm::cl::init(TrainingDefaults::recomputeAllGathers)};
  Option<RecomputeGranularity> recomputeGranularity{
      *this, "recompute-granularity",
      llvm::cl::desc("what the backward computes again (auto: under "
                     "recompute-activation-budgets)"),
      llvm::cl::init(TrainingDefaults::recomputeGranularity),
      llvm::cl::values(MT_RECOMPUTE_GRANULARITY_VALUES)};
  Option<RecomputeMethod> recomputeMethod{*this, "recompute-method",
                                          llvm::cl::desc("with full: which layers"),
                                          llvm::cl::init(TrainingDefaults::recomputeMethod),
                                          llvm::cl::values(MT_RECOMPUTE_METHOD_VALUES)};
  Option<int64_t> recomputeNumLayers{*this, "recompute-num-layers",
                                     llvm::cl::desc("full: layers per group, or recomputed"),
                                     llvm::cl::init(TrainingDefaults::recomputeNumLayers)};
  Option<bool> fuseBiasGelu{*this, "fuse-bias-gelu",
                            llvm::cl::desc("a linear's bias and the GeLU after it in one kernel"),
                            llvm::cl::init(TrainingDefaults::fuseBiasGelu)};
  Option<bool> fuseBiasDropoutAdd{
      *this, "fuse-bias-dropout-add",
      llvm::cl::desc("bias add, dropout and residual add in one kernel (not with stored masks)"),
      llvm::cl::init(TrainingDefaults::fuseBiasDropoutAdd)};
  Option<bool> fuseAddLayerNorm{
      *this, "fuse-add-layer-norm",
      llvm::cl::desc("a residual add and the layer norm of its sum in one kernel"),
      llvm::cl::init(TrainingDefaults::fuseAddLayerNorm)};
  Option<bool> fuseCrossEntropy{
      *this, "fuse-cross-entropy",
      llvm::cl::desc("the loss and its logits' gradient in one kernel, casts folded in"),
      llvm::cl::init(TrainingDefaults::fuseCrossEntropy)};
  Option<FuseAttention> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("scores, softmax, dropout and context in one kernel each way"),
      llvm::cl::init(TrainingDefaults::fuseAttention), llvm::cl::values(MT_FUSE_ATTENTION_VALUES)};
  Option<GpuAttention> gpuAttention{
      *this, "gpu-attention",
      llvm::cl::desc("GPU and emulated plans: attention's kernels (fuse-attention=auto "
                     "follows it; resolveForTarget)"),
      llvm::cl::init(TrainingDefaults::gpuAttention), llvm::cl::values(MT_GPU_ATTENTION_VALUES)};
  Option<ActivationType> activationType{
      *this, "activation-type",
      llvm::cl::desc("the activations' element type (mt-cast-activations)"),
      llvm::cl::init(TrainingDefaults::activationType),
      llvm::cl::values(MT_ACTIVATION_TYPE_VALUES)};
  Option<bool> fuseGradientAccumulation{
      *this, "fuse-gradient-accumulation",
      llvm::cl::desc("the step adds its gradients into the accumulators in place "
                     "(weight-gradient GEMMs accumulate into them)"),
      llvm::cl::init(TrainingDefaults::fuseGradientAccumulation)};
  ListOption<int64_t> recomputeActivationBudgets{
      *this, "recompute-activation-budgets",
      llvm::cl::desc("auto: bytes of live activations a training step may reach (one, or one "
                     "per virtual stage)")};
};

/// The per-target defaults, in one place (mtc and mt-opt both get them
/// from buildTrainingPipeline): collectives are split to overlap GEMMs on
/// every target with tp > 1 (on a GPU, NCCL runs the started ones on a
/// stream of their own; the host transport runs them whole); `auto`
/// attention fusion is a measurement of the CPU's f32 tiled kernels, so it
/// fuses nothing on the GPU, emulated, or with 16-bit activations, unless
/// gpu-attention asks for the GPU's fused kernels (rows: every attention;
/// mma: 16-bit attention of the tensor cores' shapes).
struct TargetResolved {
  bool overlapCollectives;
  FuseAttention fuseAttention;
  /// Fuse only attention the tensor-core kernels take (gpu-attention=mma).
  bool mmaShapesOnly = false;
};
TargetResolved resolveForTarget(const TrainingOptions &options);

/// Derives the whole training step from the canonical model: one
/// tensor-parallel rank's program, pipeline stages, unrolled
/// layers, the evaluation function, gradients, accumulation, gradient norm
/// and the AdamW update.
void buildTrainingPipeline(mlir::OpPassManager &pm, const TrainingOptions &options);

/// The first half of buildLowerToLLVMPipeline: mt to linalg, bufferized,
/// GEMMs to BLAS, each function's temporaries planned into one arena
/// (mt-plan-buffers records `mt.arena_bytes` on every function). For the
/// GPU (`forGpu`), the loop nests become GPU-mapped parallel loops and
/// single-thread kernels (mt-map-to-gpu) before the arena is planned.
mlir::LogicalResult buildBufferizePipeline(mlir::OpPassManager &pm, bool forGpu = false,
                                           bool mmaAttention = false);

/// mt-bufferize-gpu's options (mt-opt): what mtc's --gpu-attention=mma sets.
struct GpuBufferizeOptions : public mlir::PassPipelineOptions<GpuBufferizeOptions> {
  Option<bool> mmaAttention{*this, "mma-attention",
                            llvm::cl::desc("16-bit fused attention's forward on tensor cores"),
                            llvm::cl::init(false)};
};

struct GpuOptions : public mlir::PassPipelineOptions<GpuOptions> {
  ListOption<std::string> chips{*this, "chips",
                                llvm::cl::desc("GPU architectures to emit PTX for (default: "
                                               "sm_80,sm_90)")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode (math functions); empty: the CUDA toolkit's")};
};

/// Where CUDA's libdevice is: under $CUDA_HOME, $CUDA_PATH or
/// /usr/local/cuda; empty when none has it.
std::string findLibdevice();

/// The second half for the GPU: kernels outlined into one gpu.module
/// (`mt_kernels`), lowered through the nvvm dialect to PTX for each chip
/// (a `gpu.binary` with one object per chip); the host code, which only
/// computes views, launches kernels and calls BLAS, to the LLVM dialect
/// with mt_entry_* points.
mlir::LogicalResult buildGpuBuffersToLLVMPipeline(mlir::OpPassManager &pm,
                                                  const GpuOptions &options);
/// The second half: buffers to the LLVM dialect with mt_entry_* points.
/// `parallelTasks`: loops marked mt.parallel_tasks run on the async
/// runtime's worker threads (mt-parallelize-loops, async-parallel-for); the
/// code then needs libmlir_async_runtime.
mlir::LogicalResult buildBuffersToLLVMPipeline(mlir::OpPassManager &pm, bool parallelTasks = false);
/// Lowers a statically shaped, unrolled module (model and training-step
/// functions) to the LLVM dialect with one `mt_entry_<name>(ptr)` per
/// function: mt -> linalg -> bufferized loops -> LLVM. Every function takes
/// its arena as its last argument.
mlir::LogicalResult buildLowerToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers every pipeline under its mt-opt flag.
void registerPipelines();

} // namespace mt

#endif // MT_PIPELINES_PIPELINES_H
