//===- StepStats.h - what one training step reports -------------*- C++ -*-===//
//
// The trainer fills it; the log, the metrics file and the recorder read it,
// without including the Trainer.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_STEPSTATS_H
#define MT_RUNTIME_TRAINING_STEPSTATS_H

#include <string>
#include <utility>
#include <vector>

namespace mt {

/// One step's loss, gradient norm, learning rate and timings.
struct StepStats {
  double loss = 0;     // mean over the step's micro-batches
  double gradNorm = 0; // global L2 norm before clipping
  double lr = 0;
  bool skipped = false; // non-finite loss or gradient: parameters unchanged
  /// fp16: the loss scale the step ran with (0 without loss scaling), and
  /// whether the skip was a gradient overflow the scale answers (the scale
  /// was lowered), not a diverging run.
  double lossScale = 0;
  bool overflow = false;
  /// The model's metrics (mt.metric results), averaged over the step's
  /// micro-batches like the loss: BERT's "lm loss", "sop loss".
  std::vector<std::pair<std::string, double>> metrics;
  /// CPU time of the whole process over the step (every rank thread and
  /// BLAS thread in it), when the caller measures it; 0 otherwise.
  double cpuSeconds = 0;
  /// Seconds this rank spent in the step's communication after its last
  /// backward (gradient reductions, loss sums) or waiting for the
  /// overlapped reduction to finish: what the backward did not hide
  /// (negative on a one-rank run).
  double exposedCommSeconds = 0;
  /// Whether the data-parallel gradient all-reduce ran beside the backward.
  bool overlapped = false;
  /// Seconds the step's compiled code stood still in its own collectives
  /// (tensor and sequence parallelism's; a collective run whole, or the
  /// wait for one started earlier): what the compute did not hide.
  double inStepCommSeconds = 0;
  /// This rank's memory the trainer holds for temporaries: the arena its
  /// compiled functions share, and the saved activations of the micro-batches
  /// a pipeline keeps in flight (the parameters, gradients and optimizer
  /// state are in the plan's memory report).
  int64_t arenaBytes = 0;
  int64_t savedActivationBytes = 0;
  /// A GPU plan's buffers in GPU memory on this rank, the most at once so
  /// far (parameters, gradients, optimizer state, activations, arena); 0 on
  /// the CPU.
  int64_t gpuBufferBytes = 0;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_STEPSTATS_H
