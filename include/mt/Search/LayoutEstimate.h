//===- LayoutEstimate.h - a layout's memory and step time ------*- C++ -*-===//
//
// The layout search compiles the model once per (tp, sp, recomputation,
// micro-batch) at a probe depth and reads, per virtual stage, what it holds
// and what its passes cost on the cluster (StageFacts). A stage's facts are
// affine in its layers, so the probe's stages (1, 2, 1 and 1 layers, the
// first with the embedding, the last with the head) give them for any
// stage. From those, a layout's memory per pipeline rank (buffers, arena,
// saved sets of the micro-batches in flight of its schedule) and its step
// (the schedule simulated with each stage's times and link delays, then
// the data-parallel reduction and the optimizer). Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SEARCH_LAYOUTESTIMATE_H
#define MT_SEARCH_LAYOUTESTIMATE_H

#include "mt/Search/Cluster.h"
#include "mt/Search/LayoutSpace.h"
#include "mt/Search/OpRecord.h"

#include <string>
#include <vector>

namespace mt {

/// One virtual stage of a compiled step: bytes per rank, seconds on the
/// cluster per micro-batch (forward, backward) or per step (optimizer).
struct StageFacts {
  double resident = 0, parameterBytes = 0, arena = 0;
  /// With the distributed optimizer: the buffers each rank holds whole,
  /// and those sharded over the data-parallel ranks (each holds 1/dp).
  double residentDistributed = 0, optimizerSharded = 0;
  /// What a micro-batch in flight keeps, and the activation sent on.
  double stash = 0, sendBytes = 0;
  double forward = 0, backward = 0, optimizer = 0;
  /// Seconds of tensor-parallel collectives in forward + backward, and of
  /// kernels, for the breakdown.
  double communication = 0, kernels = 0;
  /// On a machine of shared cores: its seconds of the whole machine per
  /// micro-batch (forward and backward) and per step (optimizer).
  double work = 0, optimizerWork = 0;
  /// Per micro-batch: contraction FLOPs of the forward computed once, and
  /// of everything run (recomputation included).
  double forwardFlops = 0, executedFlops = 0;

  StageFacts &operator+=(const StageFacts &o);
  StageFacts operator-(const StageFacts &o) const;
  StageFacts operator*(double k) const;
};

/// One virtual stage of a compiled probe, before pricing: bytes, and what
/// its pipeline forward, its training step (per micro-batch) and its
/// optimizer (per step) run.
struct ProbeStage {
  double resident = 0, optimizerState = 0, parameterBytes = 0, arena = 0, stash = 0, sendBytes = 0;
  /// With the distributed optimizer (compiled over 2 and 4 data-parallel
  /// ranks): the buffers every rank holds whole, and those sharded over the
  /// ranks (the optimizer state, the parameters' scratch copy) in total.
  double distributedWhole = 0, distributedSharded = 0;
  bool keeps = false;
  std::vector<OpRecord> forward, trainStep, optimizer;
};

/// Any stage's facts from a probe's four stages of 1, 2, 1, 1 layers.
class StageModel {
public:
  /// False with `error` when there are not four probe stages.
  bool build(const std::vector<StageFacts> &probe, std::string &error);
  /// A stage of `layers` layers; the first holds the embedding, the last
  /// the head (a single stage both).
  StageFacts stage(int64_t layers, bool first, bool last) const;
  /// Whether the last stage keeps its saved set (else its stage input).
  bool lastKeeps = false;

private:
  StageFacts perLayer_, first_, middle_, last_;
};

/// The stage model at micro-batch size `m` on `cluster` (tp ranks a
/// tensor-parallel group), from the probe's stages compiled at sizes 1
/// (`one`) and 2 (`two`): every figure but the arena is affine in the size.
/// The distributed optimizer's buffers come from `one`'s compiles with it.
/// False with `error` when the two compiles differ in their ops.
bool priceProbe(const std::vector<ProbeStage> &one, const std::vector<ProbeStage> &two, int64_t m,
                const Cluster &cluster, int64_t tp, StageModel &model, std::string &error);

struct LayoutEstimate {
  /// Per pipeline rank: the peak bytes.
  std::vector<double> peak;
  double mostBytes = 0;
  bool fits = false;
  /// Seconds: the step and its parts.
  double step = 0, pipeline = 0, idealPipeline = 0, dataParallel = 0, optimizer = 0;
  double tokensPerSecond = 0, mfu = 0, flopsPerGpu = 0;
  /// The breakdown --explain prints.
  std::string explanation;
};

/// What a layout costs: `model` its stages' facts, `tokensPerSequence` the
/// sequence length (and a decoder's), `peakFlops` the chip's peak for the
/// step's GEMM inputs. False with `error` when the layout cannot run (the
/// schedule cannot be built).
bool estimateLayout(const Layout &layout, const StageModel &model, const Cluster &cluster,
                    int64_t layers, int64_t globalBatch, int64_t tokensPerSequence,
                    double peakFlops, LayoutEstimate &out, std::string &error);

} // namespace mt

#endif // MT_SEARCH_LAYOUTESTIMATE_H
