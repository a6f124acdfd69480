//===- DropoutOff.cpp - a function as it runs with dropout off -------------===//
#include "mt/Transforms/DropoutOff.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace mt {

void turnDropoutOff(func::FuncOp fn) {
  SmallVector<Operation *> dead;
  fn.walk([&](Operation *op) {
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      dropout.replaceAllUsesWith(dropout.getInput());
      dead.push_back(op);
    } else if (auto attention = dyn_cast<FusedAttentionOp>(op)) {
      attention.setRate(llvm::APFloat(0.0));
    } else if (auto fused = dyn_cast<BiasDropoutAddOp>(op)) {
      // residual + (input + bias), in the order the fused kernel adds.
      OpBuilder b(fused);
      Type type = fused.getType();
      Value biased = AddOp::create(b, fused.getLoc(), type, fused.getInput(), fused.getBias());
      Value sum = AddOp::create(b, fused.getLoc(), type, fused.getResidual(), biased);
      for (Value v : {biased, sum})
        if (auto layer = fused->getAttr("mt.layer"))
          v.getDefiningOp()->setAttr("mt.layer", layer);
      fused.replaceAllUsesWith(sum);
      dead.push_back(op);
    }
  });
  for (Operation *op : dead)
    op->erase();
}

} // namespace mt
