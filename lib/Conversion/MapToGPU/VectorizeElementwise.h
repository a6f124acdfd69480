//===- VectorizeElementwise.h - elementwise kernels on 16-byte vectors -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H
#define MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Rewrites an elementwise `op` (every loop parallel, a body of arith and
/// math ops, static shapes and strides) as an scf.parallel over chunks of
/// `vectorBytes` bytes of its widest element: each iteration loads a vector
/// of W neighbouring elements of each operand along the innermost dimension
/// (`vector.load` aligned to the vector's size, which NVPTX turns into one
/// 16-byte access; an operand that does not vary along it is loaded once and
/// broadcast), computes the body on vectors and stores W results. Returns
/// null, changing nothing, when the op does not fit: the innermost size is
/// not a multiple of W, an operand is laid out so that a chunk is not one
/// aligned run, or the body reads loop indices.
mlir::scf::ParallelOp vectorizeElementwise(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                                           int64_t vectorBytes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H
