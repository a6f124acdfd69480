//===- Pipelines.cpp - the pass pipelines mtc runs -------------------------===//
#include "mt/Pipelines/Pipelines.h"
#include "mt/Conversion/Passes.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;

void mt::buildInferencePipeline(OpPassManager &pm, const InferenceOptions &options) {
  pm.addPass(createVerifyModelPass());
  // As for training, the vocabulary pads to a multiple of every rank's share.
  int64_t vocabMultiple = options.makeVocabSizeDivisibleBy * options.tensorParallel;
  if (vocabMultiple > 1)
    pm.addPass(createPadVocabPass(PadVocabPassOptions{vocabMultiple}));
  // Tensor parallelism partitions the training model (its layers stacked,
  // its sizes open); the inference functions are built from one rank's.
  if (options.tensorParallel > 1)
    pm.addPass(createPartitionTensorParallelPass(
        PartitionTensorParallelPassOptions{options.tensorParallel, /*sequenceParallel=*/false}));
  // Each layer's attention gets caches of its own: unroll first.
  pm.addPass(createUnrollLayersPass());
  pm.addPass(createBuildInferencePass(BuildInferencePassOptions{
      options.capacity, options.encoderLength, options.allPrefillLogits}));
  // The decode's tokens are [?, 1] already: only the prefill takes the length
  // (an encoder-decoder's: the decoder's, beside the encoder's).
  int64_t prefill = options.prefillLength ? options.prefillLength : options.capacity;
  SpecializeShapesPassOptions shapes{options.batchSize, prefill, 0};
  if (options.encoderLength > 0)
    shapes = {options.batchSize, options.encoderLength, prefill};
  pm.addPass(createSpecializeShapesPass(shapes));
  pm.addNestedPass<mlir::func::FuncOp>(createFuseBiasGeluPass());
  pm.addNestedPass<mlir::func::FuncOp>(createFuseAddLayerNormPass());
  // After the fusions (they match f32 ops), as in training.
  if (options.activationType != ActivationType::F32)
    pm.addPass(createCastActivationsPass(
        CastActivationsPassOptions{options.activationType, /*scaleLoss=*/false}));
}

mt::TargetResolved mt::resolveForTarget(const TrainingOptions &options) {
  bool cpu = options.target == TargetKind::Cpu;
  TargetResolved r;
  // On a GPU the started collectives run on a stream of their own under
  // NCCL, and whole where they start over the host transport.
  r.overlapCollectives = options.overlapCollectives && options.tensorParallel > 1;
  r.fuseAttention = options.fuseAttention;
  if (r.fuseAttention != FuseAttention::Auto)
    return r;
  bool wide = options.activationType == ActivationType::F32;
  if (cpu) {
    r.fuseAttention = wide ? FuseAttention::Auto : FuseAttention::Off;
    return r;
  }
  GpuAttention gpu = options.gpuAttention;
  r.fuseAttention = gpu == GpuAttention::Rows || (gpu == GpuAttention::Mma && !wide)
                        ? FuseAttention::On
                        : FuseAttention::Off;
  r.mmaShapesOnly = gpu == GpuAttention::Mma;
  return r;
}

void mt::buildTrainingPipeline(OpPassManager &pm, const TrainingOptions &options) {
  TargetResolved target = resolveForTarget(options);
  // Sequence parallelism, and gathering its pieces again, need tp > 1.
  bool sequenceParallel = options.sequenceParallel && options.tensorParallel > 1;
  bool recomputeAllGathers = options.recomputeAllGathers && sequenceParallel;
  pm.addPass(createPartitionTensorParallelPass(
      PartitionTensorParallelPassOptions{options.tensorParallel, sequenceParallel}));
  pm.addPass(createSplitPipelinePass(SplitPipelinePassOptions{
      options.pipelineStages, options.virtualStages, options.pipelineSplitRank}));
  pm.addPass(createUnrollLayersPass());
  if (options.fuseBiasGelu)
    pm.addNestedPass<mlir::func::FuncOp>(createFuseBiasGeluPass());
  // Stored masks replace each dropout by a mask and a scale: nothing to fuse.
  if (options.fuseBiasDropoutAdd && !options.storeDropoutMasks)
    pm.addNestedPass<mlir::func::FuncOp>(createFuseBiasDropoutAddPass());
  if (options.fuseAddLayerNorm)
    pm.addNestedPass<mlir::func::FuncOp>(createFuseAddLayerNormPass());
  // After the fusions (they match f32 ops), before the evaluation copies the
  // forward and the gradients are derived.
  if (options.activationType != ActivationType::F32)
    pm.addPass(createCastActivationsPass(
        CastActivationsPassOptions{options.activationType,
                                   /*scaleLoss=*/options.activationType == ActivationType::F16,
                                   /*tpComm16Bit=*/options.tpComm16Bit}));
  // After the 16-bit cast (the fused op keeps its log-sum-exp in fp32),
  // before the evaluation copy (which turns the fused op's dropout off).
  if (target.fuseAttention != FuseAttention::Off) {
    bool automatic = target.fuseAttention == FuseAttention::Auto;
    FuseAttentionPassOptions fuse;
    fuse.minKeys = automatic ? TrainingDefaults::fuseAttentionAutoMinKeys : 0;
    fuse.wideOnly = automatic;
    fuse.mmaShapesOnly = target.mmaShapesOnly;
    pm.addNestedPass<mlir::func::FuncOp>(createFuseAttentionPass(fuse));
  }
  pm.addPass(createBuildEvaluationPass());
  if (options.storeDropoutMasks)
    pm.addPass(createStoreDropoutMasksPass());
  pm.addPass(createDeriveGradientsPass());
  pm.addPass(createDeferGradientReductionsPass());
  // Before recomputation, so its planner sees weight gradients going
  // straight into the accumulators rather than living to the end.
  if (options.fuseGradientAccumulation)
    pm.addPass(createFuseGradientAccumulationPass());
  if (recomputeAllGathers || options.recomputeGranularity != RecomputeGranularity::None) {
    RecomputeActivationsPassOptions recompute;
    recompute.allGathers = recomputeAllGathers;
    recompute.granularity = options.recomputeGranularity;
    recompute.method = options.recomputeMethod;
    recompute.numLayers = options.recomputeNumLayers;
    recompute.activationBudgets.assign(options.recomputeActivationBudgets.begin(),
                                       options.recomputeActivationBudgets.end());
    pm.addPass(createRecomputeActivationsPass(recompute));
  }
  // After recomputation chose what the backward computes again: a stage
  // keeps the rest from its forward.
  if (options.pipelineStages > 1)
    pm.addPass(createSplitStageStepPass());
  // After the stages split, so a last stage's loss and gradient meet in
  // one function.
  if (options.fuseCrossEntropy)
    pm.addNestedPass<mlir::func::FuncOp>(createFuseCrossEntropyPass());
  pm.addPass(
      createBuildOptimizerPass(BuildOptimizerPassOptions{options.distributedOptimizerShards}));
  if (options.signalGradientsReady)
    pm.addPass(createSignalGradientsReadyPass());
  pm.addPass(createCheckCollectivesPass());
  if (target.overlapCollectives)
    pm.addPass(createOverlapCollectivesPass());
}

LogicalResult mt::buildBufferizePipeline(OpPassManager &pm, bool forGpu, bool mmaAttention) {
  // The tensor-core kernels are written per lane: only mt-map-to-gpu runs them.
  if (mmaAttention && !forGpu)
    return failure();
  // A GPU launches a kernel per cast: each stacked parameter is cast once.
  if (forGpu)
    pm.addPass(createHoistParameterCastsPass());
  // Stages that differ only in their layers are lowered and compiled once.
  pm.addPass(createShareStageProgramsPass());
  // ... and the identical layers of one function, once.
  pm.addPass(createOutlineLayersPass());
  // The CPU multiplies attention's tiles with BLAS; a GPU runs a thread
  // per row.
  pm.addPass(createNumberCollectivesPass());
  pm.addPass(createLowerToLinalgPass(
      LowerToLinalgPassOptions{/*tiledAttention=*/!forGpu, /*mmaAttention=*/mmaAttention}));
  // A GPU spreads a row's reduction over a warp (mt-map-to-gpu); the CPU
  // overlaps independent partial sums.
  if (!forGpu)
    pm.addPass(createInterleaveRowReductionsPass());
  // A GPU launches each linalg op: casts and squares go into their readers.
  // The same for the elementwise ops around a row kernel (a softmax's
  // dropout), which upstream's fusion does not see into.
  if (forGpu) {
    pm.addPass(createFuseElementwiseOpsPass());
    pm.addPass(createFuseIntoRowKernelsPass());
  }
  // Upstream stages, by their registered names so the pipeline reads like
  // the mt-opt command that replays it.
  const char *upstream =
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "mt-drop-in-place-results,"
      "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},"
      "mt-convert-contractions-to-blas";
  if (failed(parsePassPipeline(upstream, pm)))
    return failure();
  // Before the arena is planned: scalars passed between kernels get
  // buffers of their own.
  if (forGpu) {
    // Kernels writing a layer's distinct out-parameters may share a launch.
    pm.addPass(createMarkDistinctArgumentsPass());
    pm.addPass(createMapToGPUPass());
  }
  pm.addPass(createPlanBuffersPass());
  return success();
}

std::string mt::findLibdevice() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var)) {
      std::string path = std::string(root) + "/nvvm/libdevice/libdevice.10.bc";
      if (llvm::sys::fs::exists(path))
        return path;
    }
  std::string path = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
  return llvm::sys::fs::exists(path) ? path : "";
}

LogicalResult mt::buildGpuBuffersToLLVMPipeline(OpPassManager &pm, const GpuOptions &options) {
  std::string libdevice = options.libdevice;
  if (libdevice.empty())
    libdevice = findLibdevice();
  std::vector<std::string> chips(options.chips.begin(), options.chips.end());
  if (chips.empty())
    chips = {"sm_80", "sm_90"};
  std::string kernels = "convert-parallel-loops-to-gpu,gpu-kernel-outlining,mt-merge-kernel-"
                        "modules,mt-describe-kernels,"
                        "lower-affine,convert-scf-to-cf";
  // sm_90 needs PTX 8.0; sm_80's code is the same at that version.
  for (const std::string &chip : chips)
    kernels += ",nvvm-attach-target{chip=" + chip + " features=+ptx80 O=3" +
               (libdevice.empty() ? "" : " l=" + libdevice) + "}";
  kernels += ",gpu.module(mt-promote-workgroup-buffers,mt-lower-warp-reductions,mt-lower-warp-mma,"
             "convert-gpu-to-nvvm),"
             "gpu-module-to-binary{format=isa}";
  const char *host = "convert-bufferization-to-memref,"
                     "expand-strided-metadata,"
                     "lower-affine,"
                     "convert-scf-to-cf,"
                     "gpu-to-llvm,"
                     "finalize-memref-to-llvm{use-generic-functions},"
                     "convert-math-to-llvm,"
                     "convert-arith-to-llvm,"
                     "convert-func-to-llvm,"
                     "convert-cf-to-llvm,"
                     "reconcile-unrealized-casts";
  if (failed(parsePassPipeline(kernels, pm)) || failed(parsePassPipeline(host, pm)))
    return failure();
  pm.addPass(createExportEntryPointsPass());
  return success();
}

LogicalResult mt::buildBuffersToLLVMPipeline(OpPassManager &pm, bool parallelTasks) {
  if (failed(parsePassPipeline("buffer-deallocation-pipeline,convert-bufferization-to-memref", pm)))
    return failure();
  // Task loops as tasks of the async runtime's workers; the caller waits.
  const char *tasks = "mt-parallelize-loops,"
                      "async-parallel-for{async-dispatch=false min-task-size=1},"
                      "async-to-async-runtime,"
                      "async-runtime-ref-counting,"
                      "async-runtime-ref-counting-opt,"
                      "arith-expand,"
                      "convert-async-to-llvm";
  if (parallelTasks && failed(parsePassPipeline(tasks, pm)))
    return failure();
  const char *upstream = "convert-linalg-to-loops,"
                         "expand-strided-metadata,"
                         "lower-affine,"
                         "convert-scf-to-cf,"
                         // Vector ops come only from GPU kernels emulated on the CPU.
                         "convert-vector-to-llvm,"
                         "finalize-memref-to-llvm{use-generic-functions},"
                         // f32 exp, log, tanh, erf inline instead of libm calls.
                         "mt-approximate-math,"
                         "convert-math-to-llvm,"
                         "convert-math-to-libm,"
                         // math-to-libm scalarizes vector math without an intrinsic (erf, for
                         // exact GeLU in emulated kernels) into vector.extract/insert.
                         "convert-vector-to-llvm,"
                         "convert-arith-to-llvm,"
                         "convert-func-to-llvm,"
                         "convert-cf-to-llvm,"
                         "reconcile-unrealized-casts";
  if (failed(parsePassPipeline(upstream, pm)))
    return failure();
  pm.addPass(createExportEntryPointsPass());
  return success();
}

LogicalResult mt::buildLowerToLLVMPipeline(OpPassManager &pm) {
  return success(succeeded(buildBufferizePipeline(pm)) &&
                 succeeded(buildBuffersToLLVMPipeline(pm)));
}

void mt::registerPipelines() {
  PassPipelineRegistration<TrainingOptions>(
      "mt-training-step", "derive the training step: unroll, gradients, optimizer",
      buildTrainingPipeline);
  PassPipelineRegistration<>(
      "mt-lower-to-llvm", "lower mt (static, unrolled) to the LLVM dialect with mt_entry_* points",
      [](OpPassManager &pm) { (void)buildLowerToLLVMPipeline(pm); });
  PassPipelineRegistration<>(
      "mt-bufferize",
      "lower mt to linalg on buffers, with each function's temporaries planned "
      "into one arena (the first half of mt-lower-to-llvm)",
      [](OpPassManager &pm) { (void)buildBufferizePipeline(pm); });
  PassPipelineRegistration<GpuBufferizeOptions>(
      "mt-bufferize-gpu",
      "mt-bufferize for the GPU: loop nests become GPU-mapped loops and "
      "single-thread kernels (mt-map-to-gpu) before the arena is planned",
      [](OpPassManager &pm, const GpuBufferizeOptions &options) {
        (void)buildBufferizePipeline(pm, /*forGpu=*/true, options.mmaAttention);
      });
  PassPipelineRegistration<GpuOptions>(
      "mt-lower-gpu-to-llvm",
      "after mt-bufferize-gpu: kernels to PTX per chip in one gpu.binary, the host to the LLVM "
      "dialect with mt_entry_* points",
      [](OpPassManager &pm, const GpuOptions &options) {
        (void)buildGpuBuffersToLLVMPipeline(pm, options);
      });
  PassPipelineRegistration<InferenceOptions>(
      "mt-inference", "the prefill and decode functions of text generation (mtc --inference)",
      buildInferencePipeline);
  PassPipelineRegistration<FrontendOptions>(
      "mt-frontend", "check the model and bring it to canonical form (mtc's first stage)",
      buildFrontendPipeline);
}
