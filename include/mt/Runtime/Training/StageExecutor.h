//===- StageExecutor.h - micro-batches through this rank's stages -*- C++ -*-===//
//
// Runs a step's micro-batches through the virtual pipeline stages this rank
// holds: the forward and backward passes in the order of the pipeline
// schedule (1F1B, interleaved 1F1B), activations and their gradients sent
// between neighbouring stages, and for a stage compiled by
// mt-split-stage-step one set of saved activations per micro-batch in
// flight. A set lives from its micro-batch's forward to its backward;
// exactly as many sets as the schedule keeps in flight are allocated up
// front, as the memory report counts them.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_STAGEEXECUTOR_H
#define MT_RUNTIME_TRAINING_STAGEEXECUTOR_H

#include "mt/Runtime/Training/Batch.h"
#include "mt/Runtime/Training/FunctionRunner.h"
#include "mt/Runtime/Training/ParameterStore.h"
#include "mt/Runtime/Training/Timeline.h"
#include "mt/Schedule/PipelineSchedule.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mt {

/// A virtual pipeline stage this rank runs, and its functions.
struct LocalStage {
  int64_t index = 0, chunk = 0; // chunk: its place among this rank's stages
  std::string prefix;
  const plan::Function *forward = nullptr, *trainStep = nullptr, *eval = nullptr,
                       *accumulate = nullptr, *gradSqNorm = nullptr, *optimizer = nullptr;
  /// Forward values the backward reads (mt-split-stage-step); empty when
  /// the training step computes the stage's forward itself.
  std::vector<plan::TensorSpec> saved;
};

class StageExecutor {
public:
  StageExecutor(FunctionRunner &runner, BufferStore &buffers, const RankPlace &place)
      : runner_(runner), buffers_(buffers), place_(place) {}

  /// This rank's stages of `plan` and their functions, checked against the
  /// parameters they hold (each gradient accumulated exactly once).
  bool build(const plan::Plan &plan, const ParameterStore &params, std::string &error);
  const std::vector<LocalStage> &stages() const { return stages_; }
  /// The messages between stages as NCCL sends and receives through
  /// `nccl`'s pipeline communicators (null: the host transport), the copies
  /// in flight in `gpu`'s memory.
  void runPipelineOn(DeviceCollectives *nccl, CudaBackend *gpu) {
    nccl_ = nccl;
    gpu_ = gpu;
  }
  /// The pipeline schedule of a step and, for each stage that keeps its
  /// activations, as many saved sets as the schedule holds in flight.
  bool allocateSaved(std::string &error);
  /// Bytes of the saved sets allocated.
  int64_t savedActivationBytes() const { return savedBytes_; }

  /// Called before each stage's last backward of a step (it finishes the
  /// stage's gradients); the runner's gradient signals are cleared after.
  void onLastBackward(std::function<void(const LocalStage &)> hook) {
    lastBackward_ = std::move(hook);
  }

  /// What the last stage reports over a run of micro-batches.
  struct Sums {
    double loss = 0;
    std::vector<double> metrics; // by metricNames()
  };
  /// The plan's metric buffers, in output order.
  const std::vector<std::string> &metricNames() const { return metricNames_; }

  /// Forward and backward of this rank's `batches` (its share of the
  /// global batch) through its stages, the gradients added into the
  /// accumulators. Batch k is global micro-batch k * dp + dpIndex.
  bool train(int64_t iteration, const std::vector<MicroBatch> &batches, double lossScale,
             Sums &sums, std::string &error);
  /// One micro-batch's forward with the evaluation function (the forward
  /// when the plan has none) through the stages in order.
  bool evaluate(const MicroBatch &batch, int64_t index, double lossScale, Sums &sums,
                std::string &error);

  /// The passes the last step ran on every pipeline stage, with start and
  /// end times (seconds, steady clock), assembled on rank 0. Every rank
  /// must call it.
  bool gatherTimeline(std::vector<TimelineEntry> &out, std::string &error);

private:
  using SavedSet = std::vector<std::unique_ptr<Buffer>>;
  struct StageState {
    std::vector<SavedSet> freeSets; // saved sets not in use
  };
  bool collectSaved(LocalStage &st, std::string &error);
  /// Swaps `set` with the stage's saved buffers in the store: in before the
  /// forward or backward that uses them, out after.
  void swapSaved(const LocalStage &st, SavedSet &set);
  bool takeFreeSet(size_t chunk, const std::string &micro, SavedSet &set, std::string &error);
  bool setBatch(const MicroBatch &batch, int64_t iteration, int64_t micro, double lossScale,
                std::string &error);
  bool callTrainStep(const LocalStage &st, std::string &error);
  void addLastStage(Sums &sums);
  bool runPipeline(int64_t iteration, const std::vector<MicroBatch> &batches, double lossScale,
                   Sums &sums, std::string &error);
  struct InFlight;
  /// One forward or backward of the schedule (its micro-batch's inputs in
  /// place); `lastOfChunk`: the stage's last backward of the step.
  bool runForward(const PipelineOp &op, InFlight &inFlight, std::string &error);
  bool runBackward(const PipelineOp &op, bool lastOfChunk, InFlight &inFlight, Sums &sums,
                   std::string &error);
  /// A message between neighbouring stages over `boundary` (between stages
  /// b and b + 1), activations forward or gradients back: NCCL's with
  /// runPipelineOn, else the host transport's on `channel`.
  using Flow = DeviceCollectives::Flow;
  bool sendToStage(int64_t boundary, Flow flow, int64_t peer, int channel, Buffer &b,
                   ElementType type, const std::string &what, std::string &error);
  bool recvFromStage(int64_t boundary, Flow flow, int64_t peer, int channel, Buffer &b,
                     ElementType type, const std::string &what, std::string &error);
  /// This stage's buffer of `kind` (kStageInput, ...), and how it crosses ranks.
  Buffer &stageBuffer(const LocalStage &st, std::string_view kind);
  ElementType stageType(const LocalStage &st, std::string_view kind) const;

  FunctionRunner &runner_;
  BufferStore &buffers_;
  const RankPlace &place_;
  const plan::Plan *plan_ = nullptr;
  std::vector<LocalStage> stages_;
  std::vector<StageState> state_; // by chunk
  std::vector<std::string> metricNames_;
  PipelineSchedule schedule_;           // a step's, when pipelined
  std::vector<TimelineEntry> timeline_; // this rank's passes in the last step
  int64_t savedBytes_ = 0;
  std::function<void(const LocalStage &)> lastBackward_;
  DeviceCollectives *nccl_ = nullptr;
  CudaBackend *gpu_ = nullptr;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_STAGEEXECUTOR_H
