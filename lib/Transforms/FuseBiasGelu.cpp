//===- FuseBiasGelu.cpp - a linear's bias into the GeLU after it -----------===//
#include "mt/Transforms/FusionPatterns.h"
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

namespace mt {
#define GEN_PASS_DEF_FUSEBIASGELUPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// gelu(linear(x, w, b)) -> bias_gelu(linear(x, w), b) when the GeLU is the
/// biased sum's only reader.
struct FuseBiasGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GeluOp gelu, PatternRewriter &rewriter) const override {
    auto linear = gelu.getInput().getDefiningOp<LinearOp>();
    if (!linear || !linear.getBias() || !linear->hasOneUse() ||
        cast<RankedTensorType>(linear.getBias().getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(gelu,
                                         "not the only reader of a linear with a vector bias");
    rewriter.setInsertionPoint(linear);
    auto plain = LinearOp::create(rewriter, linear.getLoc(), linear.getType(), linear.getInput(),
                                  linear.getWeight(), Value());
    carryAttributes(linear, plain);
    rewriter.setInsertionPoint(gelu);
    auto fused = BiasGeluOp::create(rewriter, gelu.getLoc(), gelu.getType(), plain.getResult(),
                                    linear.getBias(), gelu.getApproximateAttr());
    carryAttributes(gelu, fused);
    rewriter.replaceOp(gelu, fused.getResult());
    rewriter.eraseOp(linear);
    return success();
  }
};

struct FuseBiasGeluPass : mt::impl::FuseBiasGeluPassBase<FuseBiasGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseBiasGeluPatterns(patterns);
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mt::populateFuseBiasGeluPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseBiasGelu>(patterns.getContext());
}
