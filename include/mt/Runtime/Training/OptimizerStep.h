//===- OptimizerStep.h - gradient norm, clipping, AdamW ---------*- C++ -*-===//
//
// The end of a step: the global gradient norm (every stage's, every
// tensor-parallel piece's, every shard's), the decision to skip a step with
// a non-finite loss or gradient (fp16's loss scaler learns from it), the
// learning rate of the update, and the update itself: each stage's compiled
// optimizer function, fed the hyper-parameters through the ABI's slots; with
// the distributed optimizer on this rank's shard, the updated shards then
// all-gathered back into the parameters.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_OPTIMIZERSTEP_H
#define MT_RUNTIME_TRAINING_OPTIMIZERSTEP_H

#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Comm/DeviceCollectives.h"
#include "mt/Runtime/Training/LossScaler.h"
#include "mt/Runtime/Training/LrSchedule.h"
#include "mt/Runtime/Training/StageExecutor.h"
#include "mt/Runtime/Training/StepStats.h"

#include <array>
#include <optional>
#include <string>

namespace mt {

/// The values of the optimizer's hyper-parameter slots for update `step`
/// (1-based) at learning rate `lr`; the gradients are multiplied by
/// `gradScale` (clipping, the mean over micro-batches, loss unscaling).
std::array<double, MT_ABI_HYPER_COUNT> hyperParameters(const plan::Optimizer &o, int64_t step,
                                                       double lr, double gradScale);

class OptimizerStep {
public:
  OptimizerStep(BufferStore &buffers, const ParameterStore &params, const RankPlace &place,
                FunctionRunner &runner)
      : buffers_(buffers), params_(params), place_(place), runner_(runner) {}

  /// The distributed optimizer's gather of updated shards as NCCL calls
  /// through `nccl` (null: the host transport), staged in `gpu`'s memory.
  void runCollectivesOn(DeviceCollectives *nccl, CudaBackend *gpu) {
    nccl_ = nccl;
    gpu_ = gpu;
  }
  /// The plan's optimizer, learning-rate schedule and loss scaling.
  void configure(const plan::Config &config);
  /// The scale the step's losses are multiplied by (1 without scaling).
  double lossScale() const { return scaler_ ? scaler_->scale() : 1.0; }
  /// fp16's loss scaler, or null without loss scaling.
  LossScaler *lossScaler() { return scaler_ ? &*scaler_ : nullptr; }
  /// Updates applied so far (skipped steps excluded): Adam's step and the
  /// learning-rate schedule's position.
  int64_t steps() const { return steps_; }
  void setSteps(int64_t steps) { steps_ = steps; }

  /// Squared global norm of the accumulated gradients, summed over the
  /// pipeline, tensor-parallel and (distributed optimizer) data-parallel
  /// groups.
  bool gradientSquares(const std::vector<LocalStage> &stages, double &sqNorm, std::string &error);
  /// With `stats.loss` set and the gradients of `micro` micro-batches
  /// accumulated: the norm, learning rate and loss scale into `stats`,
  /// skips a non-finite step, else updates the parameters.
  bool apply(const std::vector<LocalStage> &stages, int64_t micro, double sqNorm, StepStats &stats,
             std::string &error);

private:
  bool update(const std::vector<LocalStage> &stages, std::string &error);

  BufferStore &buffers_;
  const ParameterStore &params_;
  const RankPlace &place_;
  FunctionRunner &runner_;
  DeviceCollectives *nccl_ = nullptr;
  CudaBackend *gpu_ = nullptr;
  plan::Optimizer optimizer_;
  bool distributed_ = false;
  LrSchedule schedule_;
  std::optional<LossScaler> scaler_;
  int64_t steps_ = 0;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_OPTIMIZERSTEP_H
