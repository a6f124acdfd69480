//===- MemoryReport.h - mtc --report-memory ---------------------*- C++ -*-===//
//
// Per rank, before anything runs: the buffers the runtime holds for the plan
// (parameters, gradients, optimizer state, batch and stage tensors), the
// activations each training step saves for its backward, by layer and by
// tensor, what pipelined micro-batches keep in flight, and the peak with
// where it occurs.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_MEMORYREPORT_H
#define MT_DRIVER_MEMORYREPORT_H

#include "mt/Plan/PlanFile.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace mt {

/// Per pipeline rank: the most bytes it holds at any time.
struct MemoryPeaks {
  std::vector<int64_t> perPipelineRank;
  /// Per virtual stage: the most bytes its rank holds, outside the step's
  /// own live activations, while its training step runs (buffers and the
  /// inputs of micro-batches in flight, not the saved activations). A budget
  /// less this is what the
  /// step's activations may reach.
  std::vector<int64_t> stepBase;
  /// Per virtual stage: how much more its training step's arena holds than
  /// the step's live activations at their most (copies, weight-gradient
  /// temporaries, packing).
  std::vector<int64_t> arenaOverhead;
  /// Per virtual stage: the micro-batches whose saved activations its rank
  /// holds at once, over all its stages (the sets mt-run allocates; 1 when
  /// none). The step's own activations are held that many times.
  std::vector<int64_t> savedSets;
  /// Per pipeline rank: the buffers held throughout, the optimizer state
  /// among them, and the arena.
  std::vector<int64_t> resident, optimizerState, arena;
  /// Per virtual stage: what one micro-batch in flight keeps (its saved set,
  /// or its stage input when the step computes its forward again).
  std::vector<int64_t> stash;
  /// Per virtual stage: whether it keeps its saved set between its passes.
  std::vector<bool> keeps;
};

/// The report for `plan`, compiled from `module`; false with `error` when
/// the two disagree.
bool memoryReport(mlir::ModuleOp module, const plan::Plan &plan, std::string &out,
                  MemoryPeaks &peaks, std::string &error);

} // namespace mt

#endif // MT_DRIVER_MEMORYREPORT_H
