//===- FuseBiasGelu.cpp - a linear's bias into the GeLU after it -----------===//
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_FUSEBIASGELUPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Copies the attributes `op` carries beyond its own (mt.layer, ...).
void carryAttributes(Operation *from, Operation *to) {
  for (NamedAttribute a : from->getDiscardableAttrs())
    to->setAttr(a.getName(), a.getValue());
}

struct FuseBiasGeluPass : mt::impl::FuseBiasGeluPassBase<FuseBiasGeluPass> {
  void runOnOperation() override {
    SmallVector<GeluOp> gelus;
    getOperation().walk([&](GeluOp gelu) {
      auto linear = gelu.getInput().getDefiningOp<LinearOp>();
      if (linear && linear.getBias() && linear->hasOneUse() &&
          cast<RankedTensorType>(linear.getBias().getType()).getRank() == 1)
        gelus.push_back(gelu);
    });
    for (GeluOp gelu : gelus) {
      auto linear = gelu.getInput().getDefiningOp<LinearOp>();
      OpBuilder b(linear);
      auto plain = LinearOp::create(b, linear.getLoc(), linear.getType(), linear.getInput(),
                                      linear.getWeight(), Value());
      carryAttributes(linear, plain);
      b.setInsertionPoint(gelu);
      auto fused = BiasGeluOp::create(b, gelu.getLoc(), gelu.getType(), plain.getResult(),
                                        linear.getBias(), gelu.getApproximateAttr());
      carryAttributes(gelu, fused);
      gelu.replaceAllUsesWith(fused.getResult());
      gelu.erase();
      linear.erase();
    }
  }
};

} // namespace
