//===- MTDialect.h - the mt dialect ----------------------------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTDIALECT_H
#define MT_DIALECT_MT_IR_MTDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mt/Dialect/MT/IR/MTDialect.h.inc"

#endif // MT_DIALECT_MT_IR_MTDIALECT_H
