//===- TrainingCompiler.h - one compile of a model for one layout -*- C++ -*-===//
//
// mtc compiles the model for the layout on its command line, and, to tell a
// user which options would make a plan fit a memory budget, for other
// layouts too. Everything that changes what a rank holds is in
// CompileSettings; a compile runs the frontend (if asked) and training
// pipelines and describes the plan with its parallel layout.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_TRAININGCOMPILER_H
#define MT_DRIVER_TRAININGCOMPILER_H

#include "mt/Pipelines/Pipelines.h"
#include "mt/Plan/PlanFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mt {

struct CompileSettings {
  // Frontend.
  int64_t vocabMultiple = 1, microBatchSize = 1, seqLength = 0, decoderSeqLength = 0;
  // Layout.
  int64_t tp = 1, pp = 1, dp = 1, virtualStages = 1, globalBatch = 1;
  int64_t pipelineSplitRank = 0; // encoder-decoder: the encoder's stages (0: by layers)
  bool sequenceParallel = TrainingDefaults::sequenceParallel, distributedOptimizer = false;
  plan::Parallelism::Schedule schedule = plan::Parallelism::ONE_F_ONE_B;
  // Fusions.
  bool fuseBiasGelu = TrainingDefaults::fuseBiasGelu;
  bool fuseBiasDropoutAdd = TrainingDefaults::fuseBiasDropoutAdd; // with regenerated masks
  bool fuseAddLayerNorm = TrainingDefaults::fuseAddLayerNorm;
  bool fuseCrossEntropy = TrainingDefaults::fuseCrossEntropy;
  /// 16-bit activations keep fp32 parameters and loss.
  ActivationType activationType = TrainingDefaults::activationType;
  bool fuseGradientAccumulation = TrainingDefaults::fuseGradientAccumulation;
  FuseAttention fuseAttention = TrainingDefaults::fuseAttention;
  GpuAttention gpuAttention = TrainingDefaults::gpuAttention;
  /// Where the code runs; the pipeline resolves what depends on it.
  TargetKind target = TrainingDefaults::target;
  // Activations.
  bool storeDropoutMasks = TrainingDefaults::storeDropoutMasks;
  bool recomputeAllGathers = TrainingDefaults::recomputeAllGathers;
  /// With 16-bit activations: tp/sp collectives in 16 bits, not fp32.
  bool tpComm16Bit = false;
  /// Collectives in flight beside independent GEMMs (mt-overlap-collectives).
  bool overlapCollectives = TrainingDefaults::overlapCollectives;
  RecomputeGranularity granularity = TrainingDefaults::recomputeGranularity;
  RecomputeMethod method = TrainingDefaults::recomputeMethod;
  int64_t numLayers = TrainingDefaults::recomputeNumLayers;
  /// Bytes per rank; 0: none. granularity=auto plans under it.
  int64_t memoryBudget = 0;

  /// The checks mtc makes of its flags; false with `error` naming the flag.
  bool check(std::string &error) const;
  /// The data-parallel size from --dp and --world-size (either may be 0:
  /// not given), with tp and pp set; false with `error` when they disagree.
  static bool resolveDataParallel(int64_t tp, int64_t pp, int64_t dp, int64_t worldSize,
                                  int64_t &out, std::string &error);
};

/// Gives the pass managers of a compile the command line's options.
using ConfigurePassManager = std::function<mlir::LogicalResult(mlir::PassManager &)>;

/// Compiles `module` in place: the frontend pipeline when `runFrontend`,
/// then the training pipeline. With granularity=auto, a first compile of a
/// copy without recomputation measures what each rank holds besides its
/// step's activations, and the rest of the budget goes to the planner.
/// Then describes the plan with the layout of `settings`. False with
/// `error`, or with `error` empty when the diagnostics (sent to the
/// context's handler) say why.
bool compileTraining(mlir::ModuleOp module, bool runFrontend, const CompileSettings &settings,
                     plan::Plan &plan, std::string &error,
                     const ConfigurePassManager &configure = nullptr);

} // namespace mt

#endif // MT_DRIVER_TRAININGCOMPILER_H
