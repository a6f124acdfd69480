//===- PipelineSchedule.h - 1F1B and interleaved 1F1B ----------*- C++ -*-===//
//
// The per-stage order of forward and backward passes of Narayanan et al.
// 2021 (Megatron-LM's schedules) and a simulator that executes them with
// their cross-stage dependencies, for bubble fractions, peak in-flight
// micro-batches and timelines. Plain C++: the compiler, the runtime's
// scheduler and unit tests share it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SCHEDULE_PIPELINESCHEDULE_H
#define MT_SCHEDULE_PIPELINESCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

struct PipelineOp {
  enum Kind { Forward, Backward } kind;
  int64_t microBatch;
  int64_t chunk; // model chunk on this stage (0 without interleaving)
  bool operator==(const PipelineOp &o) const {
    return kind == o.kind && microBatch == o.microBatch && chunk == o.chunk;
  }
};

/// Each stage's ops in execution order.
using PipelineSchedule = std::vector<std::vector<PipelineOp>>;

/// 1F1B: stage s runs min(p - s - 1, m) warm-up forwards, then alternates one
/// forward and one backward, then drains the remaining backwards.
PipelineSchedule schedule1F1B(int64_t stages, int64_t microBatches);

/// Interleaved 1F1B with `chunks` model chunks per stage (virtual stage
/// c * stages + s holds chunk c of stage s). Needs microBatches to be a
/// multiple of stages; returns an empty schedule and sets `error` otherwise.
PipelineSchedule scheduleInterleaved(int64_t stages, int64_t chunks, int64_t microBatches,
                                     std::string &error);

/// The most micro-batches of model chunk `chunk` that stage `stage` holds
/// at once in `schedule`: forward run, backward not yet. A stage that keeps
/// its activations needs this many sets of them.
int64_t mostInFlight(const PipelineSchedule &schedule, int64_t stage, int64_t chunk);

/// Layers per stage when `layers` are cut into `parts` contiguous ranges:
/// as even as possible, and when they do not divide evenly the middle
/// stages take the extra layers first (the first and last stages also hold
/// the embedding and the head). 10 layers on 4 stages: 2, 3, 3, 2. Empty
/// when there are fewer layers than parts.
std::vector<int64_t> splitLayers(int64_t layers, int64_t parts);

struct TimelineEntry {
  int64_t stage;
  PipelineOp op;
  double start, end;
};

struct SimulationResult {
  std::vector<TimelineEntry> timeline;
  double makespan = 0;
  /// (makespan - ideal) / ideal, ideal = m * (forward + backward) per stage.
  double bubbleFraction = 0;
  /// Per stage: the most micro-batch chunks whose activations are held
  /// (forward done, backward not yet).
  std::vector<int64_t> peakInFlight;
};

/// Runs `schedule` with a full pass taking `forwardTime` and `backwardTime`
/// (a chunk 1/chunks of that). False with `error` when the schedule cannot
/// complete (a dependency cycle) or is malformed.
bool simulate(const PipelineSchedule &schedule, int64_t chunks, int64_t microBatches,
              double forwardTime, double backwardTime, SimulationResult &result,
              std::string &error);

/// Per virtual stage: seconds one micro-batch's forward and backward pass
/// take, and seconds its output (and, back, its gradient) takes to reach the
/// next virtual stage.
struct StageTimes {
  std::vector<double> forward, backward, send;
};

/// The makespan of `schedule` when virtual stage k's passes take
/// `times.forward[k]` and `times.backward[k]` and a pass's result reaches
/// its neighbour `times.send[k]` later (the link, not the stage, is busy
/// then). Each stage runs its ops in order, each as soon as its input has
/// arrived. False with `error` on a malformed or deadlocked schedule.
bool simulateStageTimes(const PipelineSchedule &schedule, int64_t chunks, int64_t microBatches,
                        const StageTimes &times, double &makespan, std::string &error);

} // namespace mt

#endif // MT_SCHEDULE_PIPELINESCHEDULE_H
