//===- MTDialect.h - the mt dialect ----------------------------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTDIALECT_H
#define MT_DIALECT_MT_IR_MTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mt/Dialect/MT/IR/MTDialect.h.inc"

namespace mt {
/// f16, bf16, f32 or f64: the floating-point types every backend implements.
bool isSupportedFloatType(mlir::Type type);

/// The type of a loss computed from logits of element type `logits`: f64
/// for f64 logits (gradient checks), f32 for every other type.
mlir::Type lossElementType(mlir::Type logits);
} // namespace mt

#endif // MT_DIALECT_MT_IR_MTDIALECT_H
