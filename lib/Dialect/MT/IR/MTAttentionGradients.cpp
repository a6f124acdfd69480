//===- MTAttentionGradients.cpp - VJP rules of the attention ops -----------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

LogicalResult SplitHeadsOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), MergeHeadsOp::create(grad.builder(), grad.loc(),
                                                   getInput().getType(),
                                                   grad.resultAdjoint(*this)));
  return success();
}

LogicalResult MergeHeadsOp::buildVjp(GradientBuilder &grad) {
  int64_t heads = cast<RankedTensorType>(getInput().getType()).getDimSize(1);
  grad.accumulate(getInput(), SplitHeadsOp::create(grad.builder(), grad.loc(),
                                                   getInput().getType(),
                                                   grad.resultAdjoint(*this),
                                                   grad.builder().getI64IntegerAttr(heads)));
  return success();
}

LogicalResult AttentionScoresOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getQuery(), AttentionContextOp::create(grad.builder(), grad.loc(),
                                                         getQuery().getType(), dy, getKey()));
  grad.accumulate(getKey(), AttentionKVGradOp::create(grad.builder(), grad.loc(),
                                                      getKey().getType(), dy, getQuery()));
  return success();
}

LogicalResult AttentionContextOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getProbs(), AttentionScoresOp::create(grad.builder(), grad.loc(),
                                                        getProbs().getType(), dy, getValue()));
  grad.accumulate(getValue(), AttentionKVGradOp::create(grad.builder(), grad.loc(),
                                                        getValue().getType(), getProbs(), dy));
  return success();
}

LogicalResult RotaryOp::buildVjp(GradientBuilder &grad) {
  // A rotation's transpose is the opposite rotation.
  auto back = cast<RotaryOp>(grad.builder().clone(*getOperation()));
  back->setOperand(0, grad.resultAdjoint(*this));
  back.setInverse(!getInverse());
  grad.accumulate(getInput(), back.getResult());
  return success();
}

LogicalResult AlibiOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), grad.resultAdjoint(*this));
  return success();
}

LogicalResult RelativePositionBiasOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), dy);
  grad.accumulate(getTable(), RelativePositionBiasGradOp::create(
                                  grad.builder(), grad.loc(), getTable().getType(), dy,
                                  getBidirectionalAttr(), getMaxDistanceAttr()));
  return success();
}

} // namespace mt
