//===- RowKernel.h - writing a kernel as a loop over rows --------*- C++ -*-===//
//
// The row kernels (norms, softmax, cross-entropy, fused attention) are a
// loop over rows with scalar loops inside; Scalar is their arithmetic at one
// builder position.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_ROWKERNEL_H
#define MT_LIB_CONVERSION_MTTOLINALG_ROWKERNEL_H

#include "LinalgBuilder.h"

namespace mt {

/// Scalar arithmetic at one builder position.
struct Scalar {
  mlir::OpBuilder &b;
  mlir::Location l;

  mlir::Value c(mlir::Type t, double v) const {
    return mlir::arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
  }
  mlir::Value index(int64_t v) const { return mlir::arith::ConstantIndexOp::create(b, l, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) const {
    return mlir::arith::AddFOp::create(b, l, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) const {
    return mlir::arith::SubFOp::create(b, l, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MulFOp::create(b, l, x, y);
  }
  mlir::Value div(mlir::Value x, mlir::Value y) const {
    return mlir::arith::DivFOp::create(b, l, x, y);
  }
  mlir::Value max(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MaximumFOp::create(b, l, x, y);
  }
  mlir::Value exp(mlir::Value x) const { return mlir::math::ExpOp::create(b, l, x); }
  mlir::Value eq(mlir::Value x, mlir::Value y) const {
    return mlir::arith::CmpFOp::create(b, l, mlir::arith::CmpFPredicate::OEQ, x, y);
  }
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y) const {
    return mlir::arith::SelectOp::create(b, l, cond, x, y);
  }
  /// An element, widened to computeType: a 16-bit row is computed in fp32.
  mlir::Value at(mlir::Value tensor, mlir::ValueRange indices) const {
    mlir::Value v = mlir::tensor::ExtractOp::create(b, l, tensor, indices);
    return llvm::isa<mlir::FloatType>(v.getType()) ? castFloat(b, l, v, computeType(v.getType()))
                                                   : v;
  }
  /// Stores `v`, rounded to the tensor's element type.
  mlir::Value put(mlir::Value v, mlir::Value tensor, mlir::ValueRange indices) const {
    mlir::Type element = tensorOf(tensor).getElementType();
    if (llvm::isa<mlir::FloatType>(element))
      v = castFloat(b, l, v, element);
    return mlir::tensor::InsertOp::create(b, l, v, tensor, indices);
  }
  /// `v` (a float) in type `t`, extended or truncated.
  mlir::Value cast(mlir::Value v, mlir::Type t) const {
    if (v.getType() == t)
      return v;
    if (t.getIntOrFloatBitWidth() > v.getType().getIntOrFloatBitWidth())
      return mlir::arith::ExtFOp::create(b, l, t, v);
    return mlir::arith::TruncFOp::create(b, l, t, v);
  }
  /// x / d, or 0 where d is 0 (an all-masked row or batch).
  mlir::Value divOrZero(mlir::Value x, mlir::Value d) const {
    mlir::Type t = x.getType();
    return select(eq(d, c(t, 0.0)), c(t, 0.0), div(x, d));
  }
  /// A 0-d count as the divisor of a mean: 1 where it is 0.
  mlir::Value nonZero(mlir::Value d) const {
    mlir::Type t = d.getType();
    return select(eq(d, c(t, 0.0)), c(t, 1.0), d);
  }
};

/// A row loop's body: the row index, the carried values, the new ones.
using RowFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(Scalar, mlir::Value row,
                                                                mlir::ValueRange carried)>;
/// One step along a row: the column, the carried values, the new ones.
using ColumnFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(Scalar, mlir::Value column,
                                                                   mlir::ValueRange carried)>;

/// `independent`: each row writes only its own row of what is carried (not
/// a sum over rows), so the rows may run in parallel (forEachRow).
llvm::SmallVector<mlir::Value> overRows(LinalgBuilder &lb, int64_t rows, mlir::ValueRange carried,
                                        RowFn body, bool independent = false);

/// A loop over the row's columns, marked mt.along_row (a GPU spreads the
/// columns over a warp's lanes).
llvm::SmallVector<mlir::Value> alongRow(Scalar s, int64_t width, mlir::ValueRange carried,
                                        ColumnFn body);

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_ROWKERNEL_H
