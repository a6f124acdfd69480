//===- VectorizeRows.h - a lane's columns of a row as 16-byte vectors -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEROWS_H
#define MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEROWS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mt {

/// Rewrites an along-row loop mapped to a warp's lanes (from `lane` by
/// `warp` to a constant width) so that each lane takes W neighbouring
/// columns at a time, W elements of the widest type the loop reads or
/// writes making `vectorBytes`: loads and stores at [..., column] become
/// aligned vector.load/store (one 16-byte access each), the arithmetic runs
/// on vectors, and each carried sum or maximum (`kinds[i]`; null for a
/// carried buffer) is kept per vector element and combined, element 0 to
/// W-1, after the loop. Returns the values replacing the loop's results
/// (the lane's partial results), or nothing, changing nothing, when the
/// loop does not fit: the width is not a multiple of W, a buffer's layout
/// does not make each chunk one aligned run, or the body does something
/// other than arith/math on what it loads (control flow, loads at indices
/// that vary along the row other than the column itself).
std::optional<llvm::SmallVector<mlir::Value>>
vectorizeAlongRow(mlir::IRRewriter &rewriter, mlir::scf::ForOp loop, mlir::Value lane, int64_t warp,
                  llvm::ArrayRef<std::optional<mlir::gpu::AllReduceOperation>> kinds,
                  int64_t vectorBytes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEROWS_H
