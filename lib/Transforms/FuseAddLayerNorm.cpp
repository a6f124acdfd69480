//===- FuseAddLayerNorm.cpp - a residual add into the layer norm after it --===//
#include "mt/Transforms/FusionPatterns.h"
#include "mt/Transforms/Passes.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/Dominance.h"

namespace mt {
#define GEN_PASS_DEF_FUSEADDLAYERNORMPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// The residual add a layer norm reads: both operands of the norm's type
/// (a broadcast add is a bias, not a residual), in the norm's layer. A
/// layer's last residual add is left to it: fused into the next layer's
/// first norm, the next layer would start from two tensors, and full
/// recomputation would keep both instead of the one layer input.
AddOp residualAdd(LayerNormOp norm) {
  auto add = norm.getInput().getDefiningOp<AddOp>();
  if (!add || add.getLhs().getType() != add.getType() || add.getRhs().getType() != add.getType() ||
      add->getBlock() != norm->getBlock() ||
      add->getAttr(kLayerAttrName) != norm->getAttr(kLayerAttrName))
    return nullptr;
  return add;
}

/// add + layer_norm -> add_layer_norm returning the sum (which the add's
/// other readers keep reading) and the normalized tensor. Patterns run in
/// program order, so an add read by two norms fuses into the first.
struct FuseAddLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp norm, PatternRewriter &rewriter) const override {
    AddOp add = residualAdd(norm);
    if (!add)
      return rewriter.notifyMatchFailure(norm, "input is not a residual add of its layer");
    // The fused op goes where the add was when the norm's parameters are
    // defined by then (layer weights usually are), or else where the norm
    // was when the sum's other readers all come after it.
    DominanceInfo dominance(norm->getParentOp());
    Operation *at = nullptr;
    if (dominance.properlyDominates(norm.getGamma(), add) &&
        dominance.properlyDominates(norm.getBeta(), add))
      at = add;
    else if (llvm::all_of(add->getUsers(), [&](Operation *user) {
               return user == norm || dominance.properlyDominates(norm.getOperation(), user);
             }))
      at = norm;
    if (!at)
      return rewriter.notifyMatchFailure(norm, "no place where the sum and the norm can be made");
    rewriter.setInsertionPoint(at);
    auto fused = AddLayerNormOp::create(rewriter, norm.getLoc(), add.getType(), norm.getType(),
                                        add.getLhs(), add.getRhs(), norm.getGamma(), norm.getBeta(),
                                        norm.getEpsilonAttr());
    carryAttributes(norm, fused);
    rewriter.replaceOp(norm, fused.getResult());
    rewriter.replaceOp(add, fused.getSum());
    return success();
  }
};

struct FuseAddLayerNormPass : mt::impl::FuseAddLayerNormPassBase<FuseAddLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseAddLayerNormPatterns(patterns);
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mt::populateFuseAddLayerNormPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseAddLayerNorm>(patterns.getContext());
}
