//===- SiblingKernels.h - independent kernels as one launch -----*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_SIBLINGKERNELS_H
#define MT_LIB_CONVERSION_MAPTOGPU_SIBLINGKERNELS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Merges kernels of `kernels` (one-dimensional scf.parallel ops from 0 to
/// N, step 1, in one block, before mapping to blocks and threads) when a
/// later one is independent of the first and of every op between them: no
/// buffer one writes is touched by the other. Byte ranges of one arena are
/// told apart by their views' offsets, buffers carried through loops are
/// followed to where they start, and two function arguments are distinct
/// when both are noalias or they name different buffers of the plan
/// (mt.buffer, mt.param, mt.accumulator_of); anything else may alias. The
/// merged loop runs max(N, M) iterations, a body over fewer guarded by
/// `if (iv < N)`; the later kernel's body follows the first's, and the
/// ops that compute what it uses (constants, views, allocations) move
/// before the first. A layer norm's weight and bias gradients (two column
/// sums over the same rows) and the optimizer's per-parameter updates and
/// norms (independent kernels of different sizes) become a few launches.
/// Last, small kernels move down into later ones (sinkSmallKernels).
void mergeSiblingKernels(mlir::IRRewriter &rewriter,
                         llvm::SmallVectorImpl<mlir::scf::ParallelOp> &kernels);

/// Moves each small kernel of `kernels` (a column sum's second level)
/// down into the next kernel it is independent of, past ops that touch
/// none of its buffers (GEMM calls touch the buffers they point into):
/// its body runs first in that launch, guarded by its size.
void sinkSmallKernels(mlir::IRRewriter &rewriter,
                      llvm::SmallVectorImpl<mlir::scf::ParallelOp> &kernels);

/// Whether two ops may touch one byte that one of them writes (by the rules
/// above; an op that touches memory other than through loads, stores,
/// linalg operands and GEMM calls, any other call for one, conflicts with
/// everything).
bool mayConflict(mlir::Operation *a, mlir::Operation *b);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_SIBLINGKERNELS_H
