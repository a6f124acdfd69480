//===- Trainer.h - runs a plan's training step on one rank ------*- C++ -*-===//
//
// The trainer puts together the parts of a rank's step: its place in the
// mesh (RankPlace), its buffers (BufferStore) and parameter pieces
// (ParameterStore), its compiled code (CompiledFunctions), the passes
// through its pipeline stages (StageExecutor), the gradients' sums over
// other ranks (GradientSync) and the update (OptimizerStep).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_TRAINER_H
#define MT_RUNTIME_TRAINING_TRAINER_H

#include "mt/Runtime/Training/GradientSync.h"
#include "mt/Runtime/Training/OptimizerStep.h"

#include <map>
#include <string>
#include <vector>

namespace mt {

class Trainer {
public:
  Trainer() = default;
  Trainer(const Trainer &) = delete;
  Trainer &operator=(const Trainer &) = delete;

  /// Checks the plan against this machine, loads its native code and
  /// initializes this rank's parameters (its pipeline stages' slices) and
  /// optimizer state from the plan's seed. `rank` is this trainer's place in
  /// the plan's mesh; `comm` carries its messages (it may be null for a
  /// one-rank plan). Once only.
  bool load(const plan::Plan &plan, int64_t rank, Communicator *comm, std::string &error);
  bool load(const plan::Plan &plan, std::string &error) { return load(plan, 0, nullptr, error); }

  /// One optimizer step (iteration is 1-based): this rank's micro-batches of
  /// the global batch through its pipeline stages (1F1B or interleaved
  /// 1F1B), gradient accumulation, the tied-embedding and data-parallel
  /// gradient reductions, clipping, AdamW. `data` serves the whole global
  /// batch in order; each data-parallel rank keeps its own micro-batches.
  bool step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error);

  /// Mean loss of `batches` micro-batches with the evaluation function
  /// (dropout off), or the forward function when the plan has none; the
  /// data-parallel ranks share the batches out, pipeline stages pass them on.
  bool evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error,
                std::vector<std::pair<std::string, double>> *metrics = nullptr);

  const plan::Config &config() const { return plan_.config(); }
  const plan::Plan &plan() const { return plan_; }
  /// The GPU the plan runs on ("NVIDIA H100 ... (sm_90)"), or empty for the CPU.
  std::string device() const { return gpu() ? gpu()->device() : std::string(); }
  /// The GPU the plan runs on; null for a CPU plan.
  CudaBackend *gpu() const { return functions_.gpu(); }
  int64_t rank() const { return place_.rank; }
  const MeshShape &mesh() const { return place_.mesh; }
  /// A named buffer ("wte", "grad:wte", "s1/exp_avg:wte", ...), or null.
  Buffer *buffer(const std::string &name) { return buffers_.find(name); }

  /// The whole of parameter `name` (prefix "": values, "grad_acc:": the
  /// accumulated gradient) assembled on rank 0 from the stages that hold its
  /// pieces. Every rank must call it, in the same order; `out` is filled on
  /// rank 0 only.
  bool gather(const std::string &prefix, const plan::Parameter &param, std::vector<double> &out,
              std::string &error) {
    return params_.gather(prefix, param, buffers_, out, error);
  }

  /// Updates applied so far (skipped steps excluded): Adam's step and the
  /// learning-rate schedule's position. Checkpoints save and restore it.
  int64_t optimizerSteps() const { return optimizer_.steps(); }
  void setOptimizerSteps(int64_t steps) { optimizer_.setSteps(steps); }
  /// fp16's loss scaler, or null without loss scaling.
  LossScaler *lossScaler() { return optimizer_.lossScaler(); }

  /// The arena this rank's compiled functions keep their temporaries in:
  /// as large as the largest of their planned arenas.
  int64_t arenaBytes() const { return functions_.arenaBytes(); }
  /// See CompiledFunctions::measureArena.
  void measureArena() { functions_.measureArena(); }
  /// Per function name: the most bytes of the arena it wrote in one call.
  const std::map<std::string, int64_t> &arenaHighWaterMarks() const {
    return functions_.arenaHighWaterMarks();
  }
  /// See GradientSync::allowOverlap.
  void overlapGradientReduction(bool on) { gradients_.allowOverlap(on); }
  /// Whether collectives the plan starts ahead of their waits run on a
  /// thread of their own (CollectiveQueue) or whole where they start.
  void overlapTensorParallelComm(CollectiveOverlap mode) { functions_.overlapCollectives(mode); }
  /// After load(): the collectives of compiled code run as NCCL calls on the
  /// rank's stream (mt-run --collectives=nccl). Collective over the ranks;
  /// false with `error` where NCCL cannot serve this plan or fails.
  bool runCollectivesWithNccl(const NcclLibrary &nccl, std::string &error);
  /// Why NCCL cannot serve this run ("" when it can): a CPU plan, rank
  /// threads sharing a GPU, ranks that would share one. Collective over the
  /// ranks (it gathers each one's GPU); false with `error` when the host
  /// transport fails.
  bool ncclRefusal(const NcclLibrary &nccl, std::string &refusal, std::string &error);

  /// Bytes of the saved activations this rank allocated: a set per
  /// micro-batch in flight on each stage that keeps its activations.
  int64_t savedActivationBytes() const { return executor_.savedActivationBytes(); }
  /// Whether the plan has more than one pipeline stage.
  bool pipelined() const { return place_.numStages > 1; }
  /// See StageExecutor::gatherTimeline.
  bool gatherTimeline(std::vector<TimelineEntry> &out, std::string &error) {
    return executor_.gatherTimeline(out, error);
  }

private:
  /// Allocates the buffers of this rank's functions and their arena;
  /// false with `error` for a corrupt plan or a GPU out of memory.
  bool allocateFunctionBuffers(std::string &error);
  /// This rank's micro-batches of the next global batch from `data`.
  bool nextOwnBatches(BatchSource &data, std::vector<MicroBatch> &batches, std::string &error);
  /// `sums`' metrics summed over the pipeline and data-parallel groups,
  /// averaged over `micro` micro-batches.
  bool reportMetrics(const StageExecutor::Sums &sums, int64_t micro,
                     std::vector<std::pair<std::string, double>> &out, std::string &error);

  plan::Plan plan_;
  RankPlace place_;
  // Declared before the buffers: it holds the GPU their memory is on.
  CompiledFunctions functions_{buffers_, place_};
  // After the functions, so NCCL's communicators go before the GPU does.
  std::unique_ptr<DeviceCollectives> nccl_;
  BufferStore buffers_;
  ParameterStore params_;
  StageExecutor executor_{functions_, buffers_, place_};
  GradientSync gradients_{buffers_, params_, place_, functions_};
  OptimizerStep optimizer_{buffers_, params_, place_, functions_};
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TRAINER_H
