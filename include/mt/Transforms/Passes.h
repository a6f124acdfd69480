//===- Passes.h - passes over the mt dialect -------------------*- C++ -*-===//
#ifndef MT_TRANSFORMS_PASSES_H
#define MT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Transforms/TrainingChoices.h"

namespace mt {

#define GEN_PASS_DECL
#include "mt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mt/Transforms/Passes.h.inc"

} // namespace mt

#endif // MT_TRANSFORMS_PASSES_H
