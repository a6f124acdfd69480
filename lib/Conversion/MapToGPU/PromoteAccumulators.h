//===- PromoteAccumulators.h - a reduction's output in a register -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_PROMOTEACCUMULATORS_H
#define MT_LIB_CONVERSION_MAPTOGPU_PROMOTEACCUMULATORS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// A reduction lowered from linalg loads its output element, adds to it and
/// stores it back on every iteration; LLVM cannot keep it in a register
/// (it cannot prove the inputs do not alias it), so each iteration waits
/// for the store to come back from memory (on a GPU, an L1/L2 round trip:
/// a bias gradient's column sums ran at 250 GB/s). For every scf.for
/// nested in `root` whose body reads and writes one buffer element at
/// indices fixed in the loop, and touches that buffer nowhere else, the
/// element is loaded once before the loop, carried as an iteration
/// argument and stored once after it. The additions happen in the same
/// order, so results are bit-identical. Inner loops first, so a nest of
/// reduction loops is promoted level by level.
void promoteAccumulators(mlir::IRRewriter &rewriter, mlir::Operation *root);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_PROMOTEACCUMULATORS_H
