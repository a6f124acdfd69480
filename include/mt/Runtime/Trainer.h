//===- Trainer.h - runs a plan's training step on the CPU ------*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINER_H
#define MT_RUNTIME_TRAINER_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Batch.h"
#include "mt/Runtime/Communicator.h"
#include "mt/Runtime/CompiledCollectives.h"
#include "mt/Runtime/CpuModule.h"
#include "mt/Runtime/CudaBackend.h"
#include "mt/Runtime/LossScaler.h"
#include "mt/Runtime/LrSchedule.h"
#include "mt/Runtime/StepStats.h"
#include "mt/Schedule/PipelineSchedule.h"
#include "mt/Sharding/MeshShape.h"
#include "mt/Sharding/TensorShard.h"

#include <set>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mt {

class Trainer {
public:
  /// Checks the plan against this machine, loads its native code and
  /// initializes this rank's parameters (its pipeline stages' slices) and
  /// optimizer state from the plan's seed. `rank` is this trainer's place in
  /// the plan's mesh; `comm` carries its messages (it may be null for a
  /// one-rank plan).
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
  std::string device() const { return cuda_ ? cuda_->device() : std::string(); }
  /// The GPU the plan runs on; null for a CPU plan.
  CudaBackend *gpu() const { return cuda_.get(); }
  int64_t rank() const { return rank_; }
  const MeshShape &mesh() const { return mesh_; }
  /// A named buffer ("wte", "grad:wte", "s1/exp_avg:wte", ...), or null.
  Buffer *buffer(const std::string &name);

  /// The whole of parameter `name` (prefix "": values, "grad_acc:": the
  /// accumulated gradient) assembled on rank 0 from the stages that hold its
  /// pieces. Every rank must call it, in the same order; `out` is filled on
  /// rank 0 only.
  bool gather(const std::string &prefix, const plan::Parameter &param, std::vector<double> &out,
              std::string &error);

  /// Updates applied so far (skipped steps excluded): Adam's step and the
  /// learning-rate schedule's position. Checkpoints save and restore it.
  int64_t optimizerSteps() const { return optimizerSteps_; }
  void setOptimizerSteps(int64_t steps) { optimizerSteps_ = steps; }
  /// fp16's loss scaler, or null without loss scaling.
  LossScaler *lossScaler() { return lossScaler_ ? &*lossScaler_ : nullptr; }

  /// The arena this rank's compiled functions keep their temporaries in:
  /// as large as the largest of their planned arenas.
  int64_t arenaBytes() const { return arenaBytes_; }
  /// Measures, from now on, how far into the arena each function writes:
  /// before every call the arena is filled with a pattern (alternating two,
  /// so no written value can pass for the pattern twice) and afterwards
  /// scanned for the highest byte that changed. Slows every call down.
  void measureArena() { measureArena_ = true; }
  /// Whether the data-parallel all-reduce of the gradients may run on a
  /// thread of its own as the last micro-batch's backward finishes each
  /// slice (default on; it needs the rank-thread transport, a plan with
  /// mt.gradient_ready signals, one pipeline stage, no distributed
  /// optimizer, the CPU).
  void overlapGradientReduction(bool on) { overlapAllowed_ = on; }
  /// "true", "false" or "auto" (only where the transport is MPI): whether
  /// collectives the plan starts ahead of their waits run on a thread of
  /// their own (CollectiveQueue) or whole where they start.
  void overlapTensorParallelComm(const std::string &mode) { overlapTpComm_ = mode; }
  /// Per function name: the most bytes of the arena it wrote in one call.
  const std::map<std::string, int64_t> &arenaHighWaterMarks() const { return arenaReached_; }

  /// Bytes of the saved activations this rank allocated: a set per
  /// micro-batch in flight on each stage that keeps its activations.
  int64_t savedActivationBytes() const { return savedBytes_; }
  /// Whether the plan has more than one pipeline stage.
  bool pipelined() const { return numStages_ > 1; }
  /// The passes the last step ran on every pipeline stage, with start and
  /// end times (seconds, steady clock), assembled on rank 0. Every rank must
  /// call it.
  bool gatherTimeline(std::vector<TimelineEntry> &out, std::string &error);

private:
  /// A parameter, or the layers of a stacked one, held by one local stage.
  struct Slice {
    const plan::Parameter *param = nullptr;
    std::string buffer;         // stage-prefixed name
    TensorShard layout;         // which elements of the global tensor
    std::vector<int64_t> shape; // local shape
    int64_t elements = 0;
    bool ownsNorm = true; // counted in the gradient norm (tied copies once)
    std::vector<int64_t>
        tiedRanks;              // ranks holding copies when several stages do (sorted; else empty)
    bool partialOverTp = false; // the step leaves a tensor-parallel partial sum
  };
  /// A virtual pipeline stage this rank runs.
  struct Stage {
    int64_t index = 0, chunk = 0;
    std::string prefix;
    const plan::Function *forward = nullptr, *trainStep = nullptr, *eval = nullptr,
                         *accumulate = nullptr, *gradSqNorm = nullptr, *optimizer = nullptr;
    std::vector<Slice> slices;
    /// Forward values the backward reads (mt-split-stage-step), kept per
    /// micro-batch in flight: their specs, and the sets not in use. Empty
    /// when the training step computes the stage's forward itself.
    std::vector<plan::TensorSpec> saved;
    std::vector<std::vector<std::unique_ptr<Buffer>>> freeSets;
  };
  using SavedSet = std::vector<std::unique_ptr<Buffer>>;

  // load(), in order: the plan's consistency and this rank's place in it;
  // the native (and CUDA) code; this rank's virtual stages and the
  // parameter slices each holds; buffers, initial values, the arena.
  bool checkPlan(std::string &error);
  bool loadCode(std::string &error);
  bool buildStages(std::string &error);
  bool allocate(std::string &error);
  /// The saved activations `st`'s training step reads (checked against
  /// what its forward writes).
  bool collectSaved(Stage &st, std::string &error);
  /// The pipeline schedule of a step, and for each stage that keeps its
  /// activations as many saved sets as the schedule holds in flight.
  bool allocateSaved(std::string &error);
  /// Swaps `set` with the stage's saved buffers in buffers_: in before
  /// the forward or backward that uses them, out after.
  void swapSaved(Stage &st, SavedSet &set);
  /// Swaps in a free set of `st`'s saved activations for a forward of
  /// `micro`; false with `error` when the schedule holds more in flight
  /// than were planned.
  bool takeFreeSet(Stage &st, const std::string &micro, SavedSet &set, std::string &error);

  const plan::Function *function(plan::Function::Role role, int64_t stage) const;
  Buffer &ensure(const plan::TensorSpec &spec);
  bool call(const plan::Function &fn, std::string &error);
  /// One micro-batch's step on `st`, its gradients added to the accumulators.
  bool callTrainStep(Stage &st, std::string &error);
  /// Copies `batch` into the batch inputs; global micro-batch `micro` of
  /// step `iteration` gets its own dropout seed (evaluation: iteration 0).
  bool setBatch(const MicroBatch &batch, int64_t iteration, int64_t micro, std::string &error);
  /// The model's further batch inputs (MicroBatch::inputs) into their buffers.
  bool setModelInputs(const MicroBatch &batch, std::string &error);
  /// Adds this rank's metric values (after a last-stage call) to metricSums_.
  void addMetrics();
  /// Sums metricSums_ over the pipeline and data-parallel groups into `stats`.
  bool reportMetrics(int64_t micro, StepStats &stats, std::string &error);
  double scalar(const std::string &name);
  bool nextOwnBatch(BatchSource &data, MicroBatch &batch, std::string &error);
  bool sumOver(const Group &group, double &value, const std::string &what, std::string &error);
  /// Forward and backward of every micro-batch through this rank's stages.
  bool runPipeline(int64_t iteration, const std::vector<MicroBatch> &batches, double &lossSum,
                   std::string &error);
  /// Completes the gradients the step left as tensor-parallel partial sums.
  bool reducePartialGradients(std::string &error);
  bool reduceTiedGradients(std::string &error);
  bool reduceGradients(std::string &error);
  /// Hands the overlapped reduction the slices `st`'s next train step (its
  /// last backward of the step) makes final, when the plan and this run
  /// allow it (OverlappedReduction.h); the call signals into it.
  void startOverlappedReduction(Stage &st);
  /// After the step's last backward: waits for the overlapped reduction,
  /// adding the wait to `stats`. `failed`: the step already failed, so
  /// only the thread is stopped.
  bool finishOverlappedReduction(StepStats &stats, bool failed, std::string &error);
  bool optimize(std::string &error);
  int64_t shardElements(const Slice &s) const { return (s.elements + dp_ - 1) / dp_; }
  int64_t stageRank(int64_t virtualStage) const;
  bool isLastStage(const Stage &st) const { return st.index == numStages_ - 1; }

  plan::Plan plan_;
  // Declared first so it outlives the buffers in its memory and the code
  // that calls into it.
  std::unique_ptr<CudaBackend> cuda_;
  std::string allocationError_; // the first buffer that did not fit
  CpuModule module_;
  LrSchedule schedule_;
  std::map<std::string, std::unique_ptr<Buffer>> buffers_;
  std::unique_ptr<Buffer> arena_;
  int64_t arenaBytes_ = 0;
  int64_t savedBytes_ = 0;
  bool measureArena_ = false;
  std::map<std::string, int64_t> arenaCalls_;
  std::map<std::string, int64_t> arenaReached_;
  std::map<std::string, plan::DType> dtypes_;
  std::vector<std::string> metricNames_; // the plan's metric buffers, in output order
  std::vector<double> metricSums_;
  std::vector<Stage> stages_;
  PipelineSchedule pipelineSchedule_;   // a step's, when pipelined
  std::vector<TimelineEntry> timeline_; // this rank's passes in the last step
  int64_t optimizerSteps_ = 0;
  /// fp16's loss scaling (plan::LossScaling); none without it.
  std::optional<LossScaler> lossScaler_;
  int64_t rank_ = 0, dp_ = 1, dpIndex_ = 0, pp_ = 1, ppIndex_ = 0, tp_ = 1, tpIndex_ = 0,
          numStages_ = 1;
  MeshShape mesh_;
  Group dpGroup_, ppGroup_, tpGroup_;
  /// This rank's piece of a parameter held by virtual stage `stage` (layers
  /// [begin, end), or all when end is 0) on tensor-parallel rank `tpIndex`.
  TensorShard shardOf(const plan::Parameter &p, int64_t begin, int64_t end, int64_t tpIndex) const;
  Communicator *comm_ = nullptr;
  bool overlapAllowed_ = true;
  std::string overlapTpComm_ = "auto";
  double inStepCommSeconds_ = 0; // this step's calls' time stood still in collectives
  std::unique_ptr<OverlappedReduction> overlap_;
  OverlappedReduction *activeGradients_ = nullptr; // while a step call signals into it
  std::set<std::string> reducedEarly_;             // accumulators it reduced this step
};

} // namespace mt

#endif // MT_RUNTIME_TRAINER_H
