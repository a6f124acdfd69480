//===- MTDialect.cpp - the mt dialect --------------------------------------===//
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;
using namespace mt;

#include "mt/Dialect/MT/IR/MTDialect.cpp.inc"

bool mt::isSupportedFloatType(Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isF64(); }

Type mt::lossElementType(Type logits) {
  return logits.isF64() ? logits : Float32Type::get(logits.getContext());
}

void MTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mt/Dialect/MT/IR/MTOps.cpp.inc"
      >();
  registerAttributes();
}

#define GET_OP_CLASSES
#include "mt/Dialect/MT/IR/MTOps.cpp.inc"
