//===- WarpSums.h - a sum of a whole buffer on one warp ---------*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H
#define MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Rewrites a sum of every element of a buffer into a 0-d f32 buffer (a
/// linalg.generic whose loops are all reductions, reading its input through
/// the identity map, whose body adds the element, widened from 16 bits if
/// it is, to the sum) to run on one warp instead of one thread: lane l adds
/// elements l, l + 32, ... in order, the lanes' sums are combined with
/// gpu.subgroup_reduce (a fixed order), and lane 0 adds the total to the
/// output. A single thread walking the elements one after another waits a
/// memory latency per element; the leaf sums of mt-lower-to-linalg's
/// levelled sums (the loss, the gradient norm) have up to 256. Returns
/// false, changing nothing, when the op does not have that form.
bool sumOnOneWarp(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_WARPSUMS_H
