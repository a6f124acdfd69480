//===- Recompute.h - computing forward values again in the backward -*- C++ -*-===//
//
// The pieces of mt-recompute-activations: a unit of forward ops cloned
// before its layers' backward, and the planner that chooses the units under
// a memory budget (granularity=auto).
//
//===----------------------------------------------------------------------===//
#ifndef MT_TRANSFORMS_RECOMPUTE_H
#define MT_TRANSFORMS_RECOMPUTE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mt {

/// Forward ops recomputed together, in block order.
using RecomputeUnit = llvm::SmallVector<mlir::Operation *>;

/// The `mt.layer` of an op; none outside the layers.
std::optional<int64_t> layerOf(mlir::Operation *op);

/// Clones `unit` right before the first backward op of the unit's layers
/// that reads one of its results and points those readers at the clones
/// (marked `mt.backward` and `mt.recomputed`); clones nobody reads are
/// dropped. Returns the floating-point operations the surviving clones add.
int64_t recomputeUnit(const RecomputeUnit &unit);

/// What the planner chose for one gradient function.
struct RecomputeChoice {
  std::vector<RecomputeUnit> units; // one op each, consumers first; applied
  int64_t flops = 0;                // work added per micro-batch
  int64_t peakBytes = 0;            // the step's activation peak afterwards
  bool fits = false;                // peakBytes <= the budget
  int64_t cutsTried = 0;            // distinct plans measured
};

/// Chooses which forward values `grad` keeps and which its backward
/// computes again so that the step's activation peak fits `budget` bytes at
/// the least added work, applies the choice and returns it. Each candidate
/// is a minimum cut of the forward graph that prices a kept byte at lambda
/// against one operation of recomputation; lambda sweeps from free memory
/// to free work; neighbouring cuts are also mixed, the first or last layers
/// taking the dearer one. Every distinct plan is measured on a copy of the
/// function. Without a fitting cut, the one with the least peak is applied
/// and `fits` is false.
RecomputeChoice planRecomputation(mlir::func::FuncOp grad, int64_t budget);

} // namespace mt

#endif // MT_TRANSFORMS_RECOMPUTE_H
