//===- GradientSync.h - completing a step's gradients -----------*- C++ -*-===//
//
// After the backward passes each accumulator holds this rank's part of its
// gradient. GradientSync makes it the whole: tensor-parallel partial sums
// summed over tp, the copies of a tied parameter summed over the stages
// holding them, then the data-parallel sum (an all-reduce, or with the
// distributed optimizer a reduce-scatter into this rank's shard). Where the
// plan and the transport allow, the data-parallel sum runs on a thread of
// its own beside the last micro-batch's backward (OverlappedReduction), or
// with NCCL on a stream of its own (DeviceOverlappedReduction).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_GRADIENTSYNC_H
#define MT_RUNTIME_TRAINING_GRADIENTSYNC_H

#include "mt/Runtime/Comm/DeviceCollectives.h"
#include "mt/Runtime/Comm/DeviceOverlappedReduction.h"
#include "mt/Runtime/Comm/OverlappedReduction.h"
#include "mt/Runtime/Training/StageExecutor.h"
#include "mt/Runtime/Training/StepStats.h"

#include <memory>
#include <set>
#include <string>

namespace mt {

class GradientSync {
public:
  GradientSync(BufferStore &buffers, const ParameterStore &params, const RankPlace &place,
               FunctionRunner &runner)
      : buffers_(buffers), params_(params), place_(place), runner_(runner) {}

  /// With the distributed optimizer the data-parallel sum is a
  /// reduce-scatter into the "grad_shard:" buffers.
  void setDistributed(bool on) { distributed_ = on; }
  /// Whether the data-parallel sum may run beside the backward (default
  /// on; it needs a transport several threads may use, a plan with
  /// mt.gradient_ready signals, no accumulation function, the CPU).
  void allowOverlap(bool on) { overlapAllowed_ = on; }
  /// The GPU the accumulators live on (null on the CPU).
  void setGpu(CudaBackend *gpu) { gpu_ = gpu; }
  /// The tp and dp sums as NCCL calls through `nccl` (null: the host
  /// transport). No reduction beside the backward then.
  void runCollectivesOn(DeviceCollectives *nccl) { nccl_ = nccl; }

  /// Zeroes every accumulator: the start of a step.
  void zero();
  /// Before `stage`'s last backward of the step: hands the overlapped
  /// reduction the slices that call makes final, when allowed; the call
  /// signals into it through the runner.
  void startOverlap(const LocalStage &stage);
  /// After the step's last backward: waits for the overlapped reduction,
  /// adding the wait to `stats`. `failed`: the step already failed, so
  /// only the thread is stopped.
  bool finishOverlap(StepStats &stats, bool failed, std::string &error);
  /// The sums over tp, the tied copies and dp, in that order.
  bool reduce(std::string &error);

private:
  /// The stream NCCL queues on: the rank's, or none without a GPU.
  void *stream() const;
  bool reducePartial(std::string &error);
  bool reduceTied(std::string &error);
  bool reduceDataParallel(std::string &error);

  BufferStore &buffers_;
  const ParameterStore &params_;
  const RankPlace &place_;
  FunctionRunner &runner_;
  CudaBackend *gpu_ = nullptr;
  DeviceCollectives *nccl_ = nullptr;
  bool distributed_ = false;
  bool overlapAllowed_ = true;
  std::unique_ptr<OverlappedReduction> overlap_;
  std::unique_ptr<DeviceOverlappedReduction> deviceOverlap_; // with NCCL
  std::set<std::string> reducedEarly_; // accumulators it reduced this step
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_GRADIENTSYNC_H
