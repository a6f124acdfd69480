//===- FuseAttention.cpp - the attention core as one fused op ---------------===//
//
// scores -> softmax -> (dropout) -> context (-> merge_heads) becomes
// mt.fused_attention, whose kernels never hold the score matrix.
//
//===----------------------------------------------------------------------===//
#include "mt/Transforms/FusionPatterns.h"
#include "mt/Transforms/MmaAttention.h"
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

namespace mt {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

bool isStatic(Value v) { return cast<RankedTensorType>(v.getType()).hasStaticShape(); }

struct FuseAttentionCore : OpRewritePattern<AttentionContextOp> {
  FuseAttentionCore(MLIRContext *context, int64_t minKeys, int64_t blockKeys, bool wideOnly,
                    bool mmaShapesOnly)
      : OpRewritePattern(context), minKeys(minKeys), blockKeys(blockKeys), wideOnly(wideOnly),
        mmaShapesOnly(mmaShapesOnly) {}

  LogicalResult matchAndRewrite(AttentionContextOp context,
                                PatternRewriter &rewriter) const override {
    Value probs = context.getProbs();
    auto dropout = probs.getDefiningOp<DropoutOp>();
    if (dropout && !dropout->hasOneUse())
      return rewriter.notifyMatchFailure(context, "the dropped probabilities have other readers");
    auto softmax = (dropout ? dropout.getInput() : probs).getDefiningOp<SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(context, "the probabilities are not a softmax's (or "
                                                  "its dropout's)");
    if (!softmax->hasOneUse())
      return rewriter.notifyMatchFailure(context, "the probabilities have other readers");
    if (softmax.getPosition())
      return rewriter.notifyMatchFailure(context, "a KV cache's softmax (position)");
    auto scores = softmax.getInput().getDefiningOp<AttentionScoresOp>();
    if (!scores)
      return rewriter.notifyMatchFailure(context, "the softmax reads no attention scores "
                                                  "directly (a position bias between)");
    if (!scores->hasOneUse())
      return rewriter.notifyMatchFailure(context, "the scores have other readers");
    Value query = scores.getQuery(), key = scores.getKey(), value = context.getValue();
    if (!isStatic(query) || !isStatic(key) || !isStatic(value))
      return rewriter.notifyMatchFailure(context, "dynamic shapes");
    if (key.getType() != value.getType())
      return rewriter.notifyMatchFailure(context, "keys and values of different shapes");
    int64_t keys = cast<RankedTensorType>(key.getType()).getDimSize(2);
    if (keys < minKeys)
      return rewriter.notifyMatchFailure(context, "fewer keys than min-keys");
    Type element = cast<RankedTensorType>(query.getType()).getElementType();
    if (wideOnly && !element.isF32() && !element.isF64())
      return rewriter.notifyMatchFailure(context, "16-bit attention with wide-only");
    if (mmaShapesOnly && !mmaAttentionShape(cast<RankedTensorType>(query.getType()),
                                            cast<RankedTensorType>(key.getType())))
      return rewriter.notifyMatchFailure(context, "not an MMA attention shape");

    // The merge_heads that is the context's only reader goes into the op.
    Operation *replaced = context;
    if (context->hasOneUse())
      if (auto merge = dyn_cast<MergeHeadsOp>(*context->getUsers().begin()))
        replaced = merge;
    Type output = replaced->getResult(0).getType();
    auto q = cast<RankedTensorType>(query.getType());
    Type lseElement = q.getElementType().isF64() ? q.getElementType() : rewriter.getF32Type();
    auto lse = RankedTensorType::get(q.getShape().drop_back(), lseElement);

    rewriter.setInsertionPoint(replaced);
    double rate = dropout ? dropout.getRate().convertToDouble() : 0.0;
    auto fused = FusedAttentionOp::create(
        rewriter, replaced->getLoc(), output, lse, query, key, value, softmax.getKeyMask(),
        dropout ? dropout.getSeed() : Value(), dropout ? dropout.getShard() : Value(),
        softmax.getScaleAttr(), softmax.getMaskAttr(), rewriter.getF64FloatAttr(rate),
        rewriter.getI64IntegerAttr(dropout ? dropout.getStreamAttr().getInt() : 0),
        dropout ? dropout.getLayerAttr() : IntegerAttr(),
        dropout ? dropout.getShardDimAttr() : IntegerAttr(),
        dropout ? dropout.getShardPartsAttr() : IntegerAttr(),
        rewriter.getI64IntegerAttr(blockKeys));
    carryAttributes(replaced, fused);
    rewriter.replaceOp(replaced, fused.getOutput());
    if (replaced != context.getOperation())
      rewriter.eraseOp(context);
    if (dropout)
      rewriter.eraseOp(dropout);
    rewriter.eraseOp(softmax);
    rewriter.eraseOp(scores);
    return success();
  }

  int64_t minKeys, blockKeys;
  bool wideOnly, mmaShapesOnly;
};

struct FuseAttentionPass : mt::impl::FuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockKeys < 1) {
      getOperation().emitError() << "mt-fuse-attention: block-keys must be >= 1, got " << blockKeys;
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateFuseAttentionPatterns(patterns, minKeys, blockKeys, wideOnly, mmaShapesOnly);
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mt::populateFuseAttentionPatterns(RewritePatternSet &patterns, int64_t minKeys,
                                       int64_t blockKeys, bool wideOnly, bool mmaShapesOnly) {
  patterns.add<FuseAttentionCore>(patterns.getContext(), minKeys, blockKeys, wideOnly,
                                  mmaShapesOnly);
}
