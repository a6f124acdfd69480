//===- TrainingCompiler.cpp - one compile of a model for one layout --------===//
#include "mt/Driver/TrainingCompiler.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Driver/MemoryReport.h"
#include "mt/Driver/ModelArchitecture.h"
#include "mt/Driver/PlanBuilder.h"

#include "mt/Pipelines/Pipelines.h"

using namespace mlir;

namespace mt {

bool CompileSettings::resolveDataParallel(int64_t tp, int64_t pp, int64_t dp, int64_t worldSize,
                                          int64_t &out, std::string &error) {
  if (tp < 1 || pp < 1 || dp < 0 || worldSize < 0) {
    error = "--tp, --pp and --virtual-stages must be >= 1, --dp and --world-size >= 0";
    return false;
  }
  out = dp;
  if (worldSize > 0) {
    if (worldSize % (tp * pp) != 0) {
      error = "--world-size " + std::to_string(worldSize) +
              " is not a multiple of --tp x --pp = " + std::to_string(tp * pp);
      return false;
    }
    if (dp && dp * tp * pp != worldSize) {
      error = "--world-size " + std::to_string(worldSize) +
              " differs from --tp x --pp x --dp = " + std::to_string(tp * pp * dp);
      return false;
    }
    out = worldSize / (tp * pp);
  }
  if (!out)
    out = 1;
  return true;
}

bool CompileSettings::check(std::string &error) const {
  auto text = [](int64_t v) { return std::to_string(v); };
  if (microBatchSize < 1)
    error = "--micro-batch-size must be >= 1, got " + text(microBatchSize);
  else if (seqLength < 0)
    error = "--seq-length must be >= 1, got " + text(seqLength);
  else if (decoderSeqLength < 0)
    error = "--decoder-seq-length must be >= 1, got " + text(decoderSeqLength);
  else if (vocabMultiple < 1)
    error = "--make-vocab-size-divisible-by must be >= 1, got " + text(vocabMultiple);
  else if (tp < 1 || pp < 1 || dp < 1 || virtualStages < 1)
    error = "--tp, --pp and --virtual-stages must be >= 1, --dp and --world-size >= 0";
  else if (schedule != plan::Parallelism::ONE_F_ONE_B && schedule != plan::Parallelism::INTERLEAVED)
    error = "--schedule must be 1f1b or interleaved";
  else if (schedule == plan::Parallelism::INTERLEAVED && (pp < 2 || virtualStages < 2))
    error = "--schedule=interleaved needs --pp >= 2 and --virtual-stages >= 2";
  else if (schedule == plan::Parallelism::ONE_F_ONE_B && virtualStages > 1)
    error = "--virtual-stages " + text(virtualStages) + " needs --schedule=interleaved";
  else if (globalBatch < 1 || globalBatch % (microBatchSize * dp) != 0)
    error = "--global-batch-size " + text(globalBatch) +
            " is not a multiple of --micro-batch-size x --dp = " + text(microBatchSize) + " x " +
            text(dp) + ": every data-parallel rank needs whole micro-batches";
  else if (schedule == plan::Parallelism::INTERLEAVED &&
           (globalBatch / (microBatchSize * dp)) % pp != 0)
    error = "the interleaved schedule needs the micro-batches per data-parallel rank (" +
            text(globalBatch / (microBatchSize * dp)) + ") to be a multiple of --pp " + text(pp) +
            "; change --global-batch-size";
  else if (numLayers < 1)
    error = "--recompute-num-layers must be >= 1, got " + text(numLayers);
  else if (granularity == RecomputeGranularity::Auto && memoryBudget <= 0)
    error = "--recompute-granularity=auto needs --memory-budget=<bytes per rank>";
  else
    return true;
  return false;
}

namespace {

LogicalResult runPipelines(ModuleOp module, bool runFrontend, const CompileSettings &s,
                           const std::vector<int64_t> &activationBudgets,
                           const ConfigurePassManager &configure,
                           plan::ModelArchitecture &architecture) {
  MLIRContext *context = module.getContext();
  if (runFrontend) {
    PassManager frontend(context);
    if (configure && failed(configure(frontend)))
      return failure();
    FrontendOptions options;
    // Megatron pads the vocabulary to a multiple of the divisor times tp,
    // so every tensor-parallel rank holds an equal, aligned piece.
    options.makeVocabSizeDivisibleBy = s.vocabMultiple * s.tp;
    options.microBatchSize = s.microBatchSize;
    options.seqLength = s.seqLength;
    options.decoderSeqLength = s.decoderSeqLength;
    buildFrontendPipeline(frontend, options);
    if (failed(frontend.run(module)))
      return failure();
  }
  // What the model is, read before partitioning changes its shapes.
  std::vector<func::FuncOp> models = modelFunctions(module);
  if (models.size() == 1)
    architecture = describeArchitecture(models.front());
  PassManager training(context);
  if (configure && failed(configure(training)))
    return failure();
  TrainingOptions options;
  options.distributedOptimizerShards = s.distributedOptimizer ? s.dp : 0;
  // The runtime overlaps the data-parallel all-reduce, or the distributed
  // optimizer's reduce-scatter, with the backward.
  options.signalGradientsReady = s.dp > 1;
  options.target = s.target;
  options.overlapCollectives = s.overlapCollectives;
  options.tpComm16Bit = s.tpComm16Bit;
  options.pipelineStages = s.pp;
  options.tensorParallel = s.tp;
  options.sequenceParallel = s.sequenceParallel && s.tp > 1;
  options.virtualStages = s.virtualStages;
  options.pipelineSplitRank = s.pipelineSplitRank;
  options.storeDropoutMasks = s.storeDropoutMasks;
  options.fuseBiasGelu = s.fuseBiasGelu;
  options.fuseBiasDropoutAdd = s.fuseBiasDropoutAdd;
  options.fuseAddLayerNorm = s.fuseAddLayerNorm;
  options.fuseCrossEntropy = s.fuseCrossEntropy;
  options.activationType = s.activationType;
  options.fuseGradientAccumulation = s.fuseGradientAccumulation;
  options.fuseAttention = s.fuseAttention;
  options.gpuAttention = s.gpuAttention;
  options.recomputeAllGathers = s.recomputeAllGathers && s.sequenceParallel && s.tp > 1;
  options.recomputeGranularity =
      activationBudgets.empty() && s.granularity == RecomputeGranularity::Auto
          ? RecomputeGranularity::None
          : s.granularity;
  options.recomputeMethod = s.method;
  options.recomputeNumLayers = s.numLayers;
  options.recomputeActivationBudgets = activationBudgets;
  buildTrainingPipeline(training, options);
  return training.run(module);
}

bool describe(ModuleOp module, const CompileSettings &s,
              const plan::ModelArchitecture &architecture, plan::Plan &plan, std::string &error) {
  if (!describePlan(module, plan, error))
    return false;
  plan::Config &config = *plan.mutable_config();
  *config.mutable_architecture() = architecture;
  config.set_activation_type(s.activationType == ActivationType::BF16  ? plan::BF16
                             : s.activationType == ActivationType::F16 ? plan::F16
                                                                       : plan::F32);
  config.set_global_batch_size(s.globalBatch);
  config.set_data_parallel_size(s.dp);
  plan::Parallelism &parallel = *config.mutable_parallel();
  parallel.set_tensor_parallel_size(s.tp);
  parallel.set_pipeline_parallel_size(s.pp);
  parallel.set_data_parallel_size(s.dp);
  parallel.set_sequence_parallel(s.sequenceParallel && s.tp > 1);
  parallel.set_distributed_optimizer(s.distributedOptimizer);
  parallel.set_schedule(s.schedule);
  parallel.set_virtual_stages(s.virtualStages);
  return true;
}

} // namespace

bool compileTraining(ModuleOp module, bool runFrontend, const CompileSettings &settings,
                     plan::Plan &plan, std::string &error, const ConfigurePassManager &configure) {
  if (!settings.check(error))
    return false;
  std::vector<int64_t> budgets;
  if (settings.granularity == RecomputeGranularity::Auto) {
    // What each rank holds besides its step's activations does not depend
    // on what the step recomputes: measure it on a copy that keeps all.
    OwningOpRef<ModuleOp> probe(module.clone());
    plan::Plan probePlan;
    std::string report;
    MemoryPeaks peaks;
    plan::ModelArchitecture architecture;
    if (failed(runPipelines(*probe, runFrontend, settings, {}, nullptr, architecture)) ||
        !describe(*probe, settings, architecture, probePlan, error) ||
        !memoryReport(*probe, probePlan, report, peaks, error))
      return false;
    // The arena holds the step's live activations and then some; that
    // margin is taken to stay what it is when less is kept. A pipelined
    // rank keeps a micro-batch's saved activations for each one in flight:
    // the step's share is the rest over that many.
    for (size_t k = 0; k < peaks.stepBase.size(); ++k)
      budgets.push_back(std::max<int64_t>(
          (settings.memoryBudget - peaks.stepBase[k] - peaks.arenaOverhead[k]) / peaks.savedSets[k],
          0));
  }
  plan::ModelArchitecture architecture;
  if (failed(runPipelines(module, runFrontend, settings, budgets, configure, architecture)))
    return false;
  return describe(module, settings, architecture, plan, error);
}

} // namespace mt
