//===- ColumnReductions.h - sums down columns on vectors, with epilogues -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_COLUMNREDUCTIONS_H
#define MT_LIB_CONVERSION_MAPTOGPU_COLUMNREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Rewrites a column reduction (a linalg.generic with a reduction loop whose
/// innermost loop is parallel, its output indexed by its parallel loops in
/// order: a bias gradient's partial sums over blocks of rows, or the sum of
/// those partials) into one kernel, an scf.parallel over chunks of W
/// neighbouring output elements (`vectorBytes` of the widest input): each
/// iteration keeps its W sums in a vector register, walks the reduction
/// loops in the op's order (so each sum adds in the same order as the op),
/// loading `kRowsInFlight` rows before adding them, and stores once.
/// Folded into the same kernel:
/// - the linalg.fill that initialised the output just before (the sums
///   start from its value instead of a load; the fill is erased);
/// - the elementwise ops that follow and read the result at the same
///   element (a rounding to bf16 and back, the add into a gradient
///   accumulator): computed on the registers, each stored only where
///   something else reads its buffer.
/// Returns null, changing nothing, when the op does not have that form.
mlir::scf::ParallelOp reduceColumnsOnVectors(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                                             int64_t vectorBytes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_COLUMNREDUCTIONS_H
