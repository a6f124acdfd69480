//===- RowRegisters.h - a warp's row kept in registers between passes -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_ROWREGISTERS_H
#define MT_LIB_CONVERSION_MAPTOGPU_ROWREGISTERS_H

#include "mlir/IR/PatternMatch.h"

namespace mt {

/// In `rowBody`, the straight-line body of a warp-per-row kernel (after
/// mapRowsToWarps; `lane` is the lane's index), unrolls each loop along the
/// row whose lane takes at most `maxChunks` chunks (an scf.for from
/// `lane` x W to a constant width, by 32 W, which divides it), then forwards
/// what a lane loaded or stored at a chunk to its later loads of the same
/// chunk while nothing in between may write those bytes: a softmax reads
/// its row once instead of twice and its exponentials stored in the second
/// pass are not read back in the third. The values are the ones the loads
/// would have returned, so results do not change.
void keepRowInRegisters(mlir::IRRewriter &rewriter, mlir::Block *rowBody, mlir::Value lane,
                        int64_t maxChunks);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_ROWREGISTERS_H
