//===- WarpSums.h - sums of whole buffers, a warp each ----------*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H
#define MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Rewrites each sum of every element of a buffer into a 0-d f32 buffer in
/// `fn` (a linalg.generic whose loops are all reductions, reading its input
/// through the identity map, whose body adds the element, widened from 16
/// bits if it is, to the sum) to run on one warp instead of one thread:
/// lane l adds elements l, l + 32, ... in order, the lanes' sums are
/// combined with gpu.subgroup_reduce (a fixed order), and lane 0 adds the
/// total to the output's start: the value of the fill just before the sum,
/// which is dropped, or what the output holds. A single thread walking the
/// elements one after another waits a memory latency per element; the leaf
/// sums of mt-lower-to-linalg's levelled sums (the loss, the gradient norm)
/// have up to 256. Independent sums next to each other (the gradient norm's,
/// one per parameter) are one launch, a block of one warp each.
void sumsOnWarps(mlir::IRRewriter &rewriter, mlir::func::FuncOp fn);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H
