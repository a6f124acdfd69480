//===- Lowerings.h - the per-op lowerings of mt-lower-to-linalg -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H
#define MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H

#include "LinalgBuilder.h"

#include "mt/Dialect/MT/IR/MTOps.h"
#include <optional>

namespace mt {

/// The replacement values of an op; failure after a diagnostic.
using Lowered = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

/// Each group returns std::nullopt for ops it does not handle.
/// Norms, softmax and cross-entropy: one loop nest over rows each.
std::optional<Lowered> lowerRowOp(mlir::Operation *op, LinalgBuilder &lb);
std::optional<Lowered> lowerNNOp(mlir::Operation *op, LinalgBuilder &lb);
std::optional<Lowered> lowerAttentionOp(mlir::Operation *op, LinalgBuilder &lb);
std::optional<Lowered> lowerTensorOp(mlir::Operation *op, LinalgBuilder &lb);
std::optional<Lowered> lowerGradOp(mlir::Operation *op, LinalgBuilder &lb);
std::optional<Lowered> lowerOptimizerOp(mlir::Operation *op, LinalgBuilder &lb);
/// Collectives (runtime calls), mesh coordinates and the vocab-parallel loss.
std::optional<Lowered> lowerParallelOp(mlir::Operation *op, LinalgBuilder &lb);

/// Shared pieces.
/// -infinity.
double negInf();

/// `source` written into `dest` at `offsets` (tensor.insert_slice, unit strides).
mlir::Value insertSlice(LinalgBuilder &lb, mlir::Value source, mlir::Value dest,
                        llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H
