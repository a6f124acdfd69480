//===- MTOps.h - ops of the mt dialect -------------------------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTOPS_H
#define MT_DIALECT_MT_IR_MTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mt/Dialect/MT/IR/MTAttrs.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Dialect/MT/IR/MTInterfaces.h"

#define GET_OP_CLASSES
#include "mt/Dialect/MT/IR/MTOps.h.inc"

#endif // MT_DIALECT_MT_IR_MTOPS_H
