//===- DropoutOff.cpp - a function as it runs with dropout off -------------===//
#include "mt/Transforms/DropoutOff.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace mt {

void turnDropoutOff(func::FuncOp fn) {
  SmallVector<Operation *> dead;
  fn.walk([&](DropoutKeyedOpInterface keyed) {
    OpBuilder b(keyed);
    if (Value replacement = keyed.withoutDropout(b)) {
      keyed->getResult(0).replaceAllUsesWith(replacement);
      dead.push_back(keyed);
    }
  });
  for (Operation *op : dead)
    op->erase();
}

} // namespace mt
