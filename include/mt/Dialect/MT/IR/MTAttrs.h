//===- MTAttrs.h - attributes and enums of the mt dialect ------*- C++ -*-===//
#ifndef MT_DIALECT_MT_IR_MTATTRS_H
#define MT_DIALECT_MT_IR_MTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "mt/Dialect/MT/IR/MTEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mt/Dialect/MT/IR/MTAttrs.h.inc"

#endif // MT_DIALECT_MT_IR_MTATTRS_H
