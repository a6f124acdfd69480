//===- MTInterfaces.h - op interfaces of the mt dialect --------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTINTERFACES_H
#define MT_DIALECT_MT_IR_MTINTERFACES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

namespace mt {
class GradientBuilder;
} // namespace mt

#include "mt/Dialect/MT/IR/MTInterfaces.h.inc"

#endif // MT_DIALECT_MT_IR_MTINTERFACES_H
