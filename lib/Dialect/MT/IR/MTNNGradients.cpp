//===- MTNNGradients.cpp - VJP rules of the neural-network ops -------------===//
//
// DifferentiableOpInterface::buildVjp of the ops in MTNNOps.td; the rules
// are listed in docs/autodiff.md.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

static RankedTensorType tensorTypeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

LogicalResult EmbeddingOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getTable(),
                  EmbeddingGradOp::create(grad.builder(), grad.loc(), getTable().getType(),
                                          grad.resultAdjoint(*this), getIds(), getShard()));
  return success();
}

LogicalResult PositionEmbeddingOp::buildVjp(GradientBuilder &grad) {
  if (getPosition())
    return emitError("mt-derive-gradients: a position embedding at a runtime position (`at`) "
                     "is for inference and has no gradient");
  grad.accumulate(getTable(),
                  PositionEmbeddingGradOp::create(grad.builder(), grad.loc(), getTable().getType(),
                                                  grad.resultAdjoint(*this)));
  return success();
}

LogicalResult LinearOp::buildVjp(GradientBuilder &grad) {
  OpBuilder &b = grad.builder();
  Location loc = grad.loc();
  Value dy = grad.resultAdjoint(*this);
  if (tensorTypeOf(dy).getRank() < 2)
    return emitError("mt-derive-gradients: mt.linear of a rank-1 input is not supported");
  // dx = dy W; dW = dy^T x over all rows; db = sum of dy over rows.
  grad.accumulate(getInput(),
                  MatmulOp::create(b, loc, getInput().getType(), dy, getWeight(), false, false));
  grad.accumulate(getWeight(), MatmulOp::create(b, loc, getWeight().getType(), grad.flatten(dy),
                                                grad.flatten(getInput()), true, false));
  if (getBias())
    grad.accumulate(getBias(), grad.sumTo(dy, getBias().getType()));
  return success();
}

LogicalResult MatmulOp::buildVjp(GradientBuilder &grad) {
  OpBuilder &b = grad.builder();
  Location loc = grad.loc();
  Value dc = grad.resultAdjoint(*this);
  Value a = getLhs(), bm = getRhs();
  bool ta = getTransposeLhs(), tb = getTransposeRhs();
  bool broadcastRhs = tensorTypeOf(bm).getRank() == 2 && tensorTypeOf(a).getRank() > 2;
  if (ta && broadcastRhs)
    return emitError("mt-derive-gradients: mt.matmul with transpose_lhs and a shared "
                     "matrix rhs is not supported");
  // With A' = op(a), B' = op(b): dA' = dC B'^T, dB' = A'^T dC.
  if (!ta)
    grad.accumulate(a, MatmulOp::create(b, loc, a.getType(), dc, bm, false, !tb));
  else
    grad.accumulate(a, MatmulOp::create(b, loc, a.getType(), bm, dc, tb, true));
  if (broadcastRhs) {
    // Sum over the batch: rows of a (and dC) flattened.
    Value a2 = grad.flatten(a), dc2 = grad.flatten(dc);
    grad.accumulate(bm, tb ? MatmulOp::create(b, loc, bm.getType(), dc2, a2, true, false)
                           : MatmulOp::create(b, loc, bm.getType(), a2, dc2, true, false));
  } else if (!tb) {
    grad.accumulate(bm, MatmulOp::create(b, loc, bm.getType(), a, dc, !ta, false));
  } else {
    grad.accumulate(bm, MatmulOp::create(b, loc, bm.getType(), dc, a, true, ta));
  }
  return success();
}

LogicalResult LayerNormOp::buildVjp(GradientBuilder &grad) {
  auto g = LayerNormGradOp::create(
      grad.builder(), grad.loc(), getInput().getType(), getGamma().getType(), getGamma().getType(),
      grad.resultAdjoint(*this), getInput(), getGamma(), Value(), getEpsilonAttr());
  grad.accumulate(getInput(), g.getGradInput());
  grad.accumulate(getGamma(), g.getGradGamma());
  grad.accumulate(getBeta(), g.getGradBeta());
  return success();
}

LogicalResult AddLayerNormOp::buildVjp(GradientBuilder &grad) {
  // The sum's own gradient (the residual stream's) is added in the norm's
  // backward kernel; input and residual both receive the total.
  Value dsum = grad.adjoint(getSum()), dnorm = grad.adjoint(getResult());
  Value total = dsum;
  if (dnorm) {
    auto g = LayerNormGradOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                     getGamma().getType(), getGamma().getType(), dnorm, getSum(),
                                     getGamma(), dsum, getEpsilonAttr());
    total = g.getGradInput();
    grad.accumulate(getGamma(), g.getGradGamma());
    grad.accumulate(getBeta(), g.getGradBeta());
  }
  grad.accumulate(getInput(), total);
  grad.accumulate(getResidual(), total);
  return success();
}

LogicalResult RmsNormOp::buildVjp(GradientBuilder &grad) {
  auto g =
      RmsNormGradOp::create(grad.builder(), grad.loc(), getInput().getType(), getGamma().getType(),
                            grad.resultAdjoint(*this), getInput(), getGamma(), getEpsilonAttr());
  grad.accumulate(getInput(), g.getGradInput());
  grad.accumulate(getGamma(), g.getGradGamma());
  return success();
}

LogicalResult GeluOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), GeluGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy,
                                                 getInput(), getApproximateAttr()));
  return success();
}

LogicalResult BiasGeluOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  Value d = BiasGeluGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getInput(),
                                   getBias(), getApproximateAttr());
  grad.accumulate(getInput(), d);
  grad.accumulate(getBias(), grad.sumTo(d, getBias().getType()));
  return success();
}

LogicalResult SoftmaxOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), SoftmaxGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy,
                                                    getResult(), getScaleAttr()));
  return success();
}

LogicalResult LogSoftmaxOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), LogSoftmaxGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy,
                                                       getResult()));
  return success();
}

LogicalResult DropoutOp::buildVjp(GradientBuilder &grad) {
  // The mask is a function of the key, so applying the same dropout to the
  // gradient multiplies it by exactly the forward mask.
  auto back = cast<DropoutOp>(grad.builder().clone(*getOperation()));
  back->setOperand(0, grad.resultAdjoint(*this));
  grad.accumulate(getInput(), back.getResult());
  return success();
}

LogicalResult BiasDropoutAddOp::buildVjp(GradientBuilder &grad) {
  // The residual passes the gradient on; the dropout with the same key is
  // its own VJP, and the bias sums what reaches it.
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getResidual(), dy);
  auto back = DropoutOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getSeed(), getShard(),
                                getRateAttr(), getStreamAttr(), getLayerAttr(), getShardDimAttr(),
                                getShardPartsAttr());
  grad.accumulate(getInput(), back.getResult());
  grad.accumulate(getBias(), grad.sumTo(back.getResult(), getBias().getType()));
  return success();
}

LogicalResult MaskedScaleOp::buildVjp(GradientBuilder &grad) {
  // Linear in the input: the stored mask applies to the gradient too.
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), MaskedScaleOp::create(grad.builder(), grad.loc(), dy.getType(), dy,
                                                    getMask(), getScaleAttr()));
  return success();
}

LogicalResult AddOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getLhs(), dy);
  grad.accumulate(getRhs(), grad.sumTo(dy, getRhs().getType()));
  return success();
}

LogicalResult MulOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getLhs(), MulOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getRhs()));
  grad.accumulate(getRhs(),
                  grad.sumTo(MulOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getLhs()),
                             getRhs().getType()));
  return success();
}

LogicalResult SplitOp::buildVjp(GradientBuilder &grad) {
  SmallVector<Value> pieces;
  for (Value r : getResults())
    pieces.push_back(grad.adjoint(r) ? grad.adjoint(r) : grad.zeros(r.getType()));
  grad.accumulate(getInput(), ConcatOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                               pieces, getDimAttr()));
  return success();
}

LogicalResult CrossEntropyOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getLogits(),
                  CrossEntropyGradOp::create(grad.builder(), grad.loc(), getLogits().getType(),
                                             grad.resultAdjoint(*this), getLogits(), getLabels(),
                                             getLossMask(), getNumClassesAttr()));
  return success();
}

LogicalResult VocabParallelMaxOp::buildVjp(GradientBuilder &) {
  // The row maximum only shifts the exponentials (CrossEntropyFromStatsOp):
  // no gradient.
  return success();
}

LogicalResult VocabParallelStatsOp::buildVjp(GradientBuilder &grad) {
  Value dSumExp = grad.adjoint(getSumExp()), dLabel = grad.adjoint(getLabelLogit());
  if (!dSumExp)
    dSumExp = grad.zeros(getSumExp().getType());
  if (!dLabel)
    dLabel = grad.zeros(getLabelLogit().getType());
  grad.accumulate(getLogits(),
                  VocabParallelStatsGradOp::create(
                      grad.builder(), grad.loc(), getLogits().getType(), dSumExp, dLabel,
                      getLogits(), getShard(), getLabels(), getMax(), getNumClassesAttr()));
  return success();
}

LogicalResult CrossEntropyFromStatsOp::buildVjp(GradientBuilder &grad) {
  auto g = CrossEntropyFromStatsGradOp::create(grad.builder(), grad.loc(), getSumExp().getType(),
                                               getSumExp().getType(), grad.resultAdjoint(*this),
                                               getSumExp(), getLossMask());
  grad.accumulate(getSumExp(), g.getGradSumExp());
  grad.accumulate(getLabelLogit(), g.getGradLabelLogit());
  // The row maximum only shifts the exponentials: no gradient.
  return success();
}

} // namespace mt
