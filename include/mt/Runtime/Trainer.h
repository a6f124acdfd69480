//===- Trainer.h - runs a plan's training step on the CPU ------*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINER_H
#define MT_RUNTIME_TRAINER_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Communicator.h"
#include "mt/Runtime/CpuModule.h"
#include "mt/Runtime/LrSchedule.h"
#include "mt/Sharding/MeshShape.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {

/// One micro-batch: [micro_batch_size, seq_length] tokens, next-token labels
/// and a loss mask.
struct MicroBatch {
  std::vector<int32_t> tokens, labels;
  std::vector<float> lossMask;
};

/// Where micro-batches come from (a dataset split, a test fixture).
class BatchSource {
public:
  virtual ~BatchSource() = default;
  /// Fills `batch` for `rows` sequences of `seq` tokens; false with `error`.
  virtual bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) = 0;
};

struct StepStats {
  double loss = 0;     // mean over the step's micro-batches
  double gradNorm = 0; // global L2 norm before clipping
  double lr = 0;
  bool skipped = false; // non-finite loss or gradient: parameters unchanged
};

/// The plan's rank mesh: axes [pp, dp, tp], tp fastest (Megatron's order).
MeshShape planMesh(const plan::Config &config);

class Trainer {
public:
  /// Checks the plan against this machine, loads its native code and
  /// initializes parameters and optimizer state from the plan's seed.
  /// `rank` is this trainer's place in the plan's mesh; `comm` carries its
  /// messages (it may be null for a one-rank plan).
  bool load(const plan::Plan &plan, int64_t rank, Communicator *comm, std::string &error);
  bool load(const plan::Plan &plan, std::string &error) { return load(plan, 0, nullptr, error); }

  /// One optimizer step (iteration is 1-based): this rank's micro-batches of
  /// the global batch, gradient accumulation, the data-parallel gradient
  /// reduction, clipping, AdamW. `data` serves the whole global batch in
  /// order; each data-parallel rank keeps its own micro-batches of it.
  bool step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error);

  /// Mean loss of `batches` micro-batches with the evaluation function
  /// (dropout off), or the forward function when the plan has none; the
  /// data-parallel ranks share the batches out.
  bool evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error);

  const plan::Config &config() const { return plan_.config(); }
  const plan::Plan &plan() const { return plan_; }
  int64_t rank() const { return rank_; }
  const MeshShape &mesh() const { return mesh_; }
  /// A named buffer ("wte", "grad:wte", "exp_avg:wte", ...), or null.
  Buffer *buffer(const std::string &name);
  /// Parameter values as doubles, by name (for tests and checkpoints).
  std::vector<double> values(const std::string &name);

private:
  const plan::Function *function(const std::string &role) const;
  Buffer &ensure(const plan::TensorSpec &spec);
  bool call(const plan::Function &fn, std::string &error);
  /// Copies `batch` into the batch inputs; micro-batch `micro` of step
  /// `iteration` gets its own dropout seed (0 for evaluation: iteration 0).
  bool setBatch(const MicroBatch &batch, int64_t iteration, int64_t micro, std::string &error);
  double scalar(const std::string &name);
  /// Fetches the data-parallel group's next `dp` micro-batches into `batch`,
  /// keeping this rank's.
  bool nextOwnBatch(BatchSource &data, MicroBatch &batch, std::string &error);
  /// Sums a host value over the data-parallel group.
  bool sumOverDataParallel(double &value, const std::string &what, std::string &error);
  /// Reduces the accumulated gradients over the data-parallel group: in
  /// place, or (distributed optimizer) into this rank's shards.
  bool reduceGradients(std::string &error);
  /// Distributed optimizer: this rank's shard of each parameter in and out.
  void copyParamShards();
  bool gatherParamShards(std::string &error);
  int64_t shardElements(const plan::Parameter &p) const;

  plan::Plan plan_;
  CpuModule module_;
  LrSchedule schedule_;
  std::map<std::string, std::unique_ptr<Buffer>> buffers_;
  std::map<std::string, plan::DType> dtypes_;
  int64_t optimizerSteps_ = 0;
  int64_t rank_ = 0, dp_ = 1, dpIndex_ = 0;
  MeshShape mesh_;
  Group dpGroup_;
  Communicator *comm_ = nullptr;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINER_H
