//===- MTInterfaces.h - op interfaces of the mt dialect --------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTINTERFACES_H
#define MT_DIALECT_MT_IR_MTINTERFACES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

namespace mt {
class GradientBuilder;

/// An op that stores its activations in 16 bits under --bf16/--fp16
/// (mt-cast-activations) and computes in fp32 inside its kernel, so the
/// 16-bit program loses only the rounding of what it stores. Pointwise ops
/// (PointwiseOpInterface) always do and need not say so.
template <typename ConcreteType>
class RunsIn16Bits : public mlir::OpTrait::TraitBase<ConcreteType, RunsIn16Bits> {};
} // namespace mt

#include "mt/Dialect/MT/IR/MTInterfaces.h.inc"

#endif // MT_DIALECT_MT_IR_MTINTERFACES_H
