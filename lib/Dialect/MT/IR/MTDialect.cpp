//===- MTDialect.cpp - the mt dialect --------------------------------------===//
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;
using namespace mt;

#include "mt/Dialect/MT/IR/MTDialect.cpp.inc"

void MTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mt/Dialect/MT/IR/MTOps.cpp.inc"
      >();
  registerAttributes();
}

#define GET_OP_CLASSES
#include "mt/Dialect/MT/IR/MTOps.cpp.inc"
