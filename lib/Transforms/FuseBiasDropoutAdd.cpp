//===- FuseBiasDropoutAdd.cpp - bias, dropout and residual in one op -------===//
#include "mt/Transforms/FusionPatterns.h"
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

namespace mt {
#define GEN_PASS_DEF_FUSEBIASDROPOUTADDPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

bool isRank1(Value v) { return cast<RankedTensorType>(v.getType()).getRank() == 1; }

/// residual + dropout(input + bias), where the bias comes from a biased
/// linear or a rank-1 add and each intermediate has one reader.
struct FuseBiasDropoutAdd : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutOp d, PatternRewriter &rewriter) const override {
    if (!d->hasOneUse())
      return rewriter.notifyMatchFailure(d, "more than one reader");
    auto add = dyn_cast<AddOp>(*d->getUsers().begin());
    if (!add)
      return rewriter.notifyMatchFailure(d, "not read by an add");
    Value residual = add.getLhs() == d.getResult() ? add.getRhs() : add.getLhs();
    if (residual == d.getResult() || residual.getType() != d.getType())
      return rewriter.notifyMatchFailure(d, "no residual of the dropout's type");
    Operation *biasOp = d.getInput().getDefiningOp();
    if (!biasOp || !biasOp->hasOneUse())
      return rewriter.notifyMatchFailure(d, "input not made for the dropout alone");

    Value input, bias;
    if (auto linear = dyn_cast<LinearOp>(biasOp);
        linear && linear.getBias() && isRank1(linear.getBias())) {
      rewriter.setInsertionPoint(linear);
      auto plain = LinearOp::create(rewriter, linear.getLoc(), linear.getType(), linear.getInput(),
                                    linear.getWeight(), Value());
      carryAttributes(linear, plain);
      input = plain.getResult();
      bias = linear.getBias();
    } else if (auto biasAdd = dyn_cast<AddOp>(biasOp);
               biasAdd && isRank1(biasAdd.getRhs()) && biasAdd.getLhs().getType() == d.getType()) {
      input = biasAdd.getLhs();
      bias = biasAdd.getRhs();
    } else {
      return rewriter.notifyMatchFailure(d, "input is not a sum with a vector bias");
    }
    rewriter.setInsertionPoint(add);
    auto fused =
        BiasDropoutAddOp::create(rewriter, add.getLoc(), add.getType(), input, bias, residual,
                                 d.getSeed(), d.getShard(), d.getRateAttr(), d.getStreamAttr(),
                                 d.getLayerAttr(), d.getShardDimAttr(), d.getShardPartsAttr());
    carryAttributes(add, fused);
    rewriter.replaceOp(add, fused.getResult());
    rewriter.eraseOp(d);
    rewriter.eraseOp(biasOp);
    return success();
  }
};

struct FuseBiasDropoutAddPass : mt::impl::FuseBiasDropoutAddPassBase<FuseBiasDropoutAddPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseBiasDropoutAddPatterns(patterns);
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mt::populateFuseBiasDropoutAddPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseBiasDropoutAdd>(patterns.getContext());
}
