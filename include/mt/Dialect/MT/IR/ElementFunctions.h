//===- ElementFunctions.h - scalar functions of pointwise ops -*- C++ -*-===//
//
// The element functions that more than one op builds: a pointwise op's
// buildScalar (PointwiseOpInterface) and the fused kernels that contain the
// same function (bias + GeLU, dropout inside attention) share one
// definition, so the fused and unfused programs compute the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DIALECT_MT_IR_ELEMENTFUNCTIONS_H
#define MT_DIALECT_MT_IR_ELEMENTFUNCTIONS_H

#include "mlir/IR/Builders.h"

namespace mt {

/// GeLU of `x`: exact (erf) or GPT-2's tanh approximation.
mlir::Value gelu(mlir::OpBuilder &b, mlir::Location l, mlir::Value x, bool tanhApprox);
/// The derivative of gelu at `x`.
mlir::Value geluDerivative(mlir::OpBuilder &b, mlir::Location l, mlir::Value x, bool tanhApprox);
/// select(keep, x * scale, 0): dropout's kept elements, scaled.
mlir::Value keepScaled(mlir::OpBuilder &b, mlir::Location l, mlir::Value keep, mlir::Value x,
                       double scale);

} // namespace mt

#endif // MT_DIALECT_MT_IR_ELEMENTFUNCTIONS_H
