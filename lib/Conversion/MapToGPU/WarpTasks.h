//===- WarpTasks.h - a loop of per-lane warp tasks on warps ------*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_WARPTASKS_H
#define MT_LIB_CONVERSION_MAPTOGPU_WARPTASKS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Runs `taskLoop` (an scf.for over [0, N) marked mt.warp_tasks = W, its
/// body written for one lane: mt.lane_id, mt.warp_mma, quad reductions)
/// with a task per warp, W warps to a block: the loop nest of
/// buildWarpLoops, the task index block + warp behind a guard the whole warp
/// takes together, each mt.lane_id the lane. Fails with an error on the
/// loop, changing nothing, when its bounds are not constant from 0 by 1.
mlir::LogicalResult mapWarpTasks(mlir::IRRewriter &rewriter, mlir::scf::ForOp taskLoop);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_WARPTASKS_H
