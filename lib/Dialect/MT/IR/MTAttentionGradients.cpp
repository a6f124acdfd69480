//===- MTAttentionGradients.cpp - VJP rules of the attention ops -----------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

LogicalResult SplitHeadsOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), MergeHeadsOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                                   grad.resultAdjoint(*this)));
  return success();
}

LogicalResult MergeHeadsOp::buildVjp(GradientBuilder &grad) {
  int64_t heads = cast<RankedTensorType>(getInput().getType()).getDimSize(1);
  grad.accumulate(getInput(), SplitHeadsOp::create(grad.builder(), grad.loc(), getInput().getType(),
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
  if (getPosition())
    return emitOpError("a bias at a run-time position is for inference: it has no gradient");
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(), dy);
  grad.accumulate(getTable(), RelativePositionBiasGradOp::create(
                                  grad.builder(), grad.loc(), getTable().getType(), dy,
                                  getBidirectionalAttr(), getMaxDistanceAttr()));
  return success();
}

LogicalResult FusedAttentionOp::buildVjp(GradientBuilder &grad) {
  if (grad.adjoint(getLse()))
    return emitOpError("the log-sum-exp result has no gradient: read it only where no "
                       "gradient flows back (it is the backward's own input)");
  Value dOutput = grad.adjoint(getOutput());
  if (!dOutput)
    return success();
  // The gradient takes every attribute of the forward (the same key, masks
  // and tiles); only the operand segments differ.
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : (*this)->getAttrs())
    if (a.getName() != getOperandSegmentSizesAttrName())
      attrs.push_back(a);
  auto present = [](Value v) { return v ? 1 : 0; };
  attrs.push_back(grad.builder().getNamedAttr(
      FusedAttentionGradOp::getOperandSegmentSizesAttrName(
          OperationName(FusedAttentionGradOp::getOperationName(), getContext())),
      grad.builder().getDenseI32ArrayAttr(
          {1, 1, 1, 1, 1, 1, present(getKeyMask()), present(getSeed()), present(getShard())})));
  SmallVector<Value> operands{dOutput, getQuery(), getKey(), getValue(), getOutput(), getLse()};
  for (Value v : {getKeyMask(), getSeed(), getShard()})
    if (v)
      operands.push_back(v);
  auto g = FusedAttentionGradOp::create(
      grad.builder(), grad.loc(),
      TypeRange{getQuery().getType(), getKey().getType(), getValue().getType()}, operands, attrs);
  grad.accumulate(getQuery(), g.getGradQuery());
  grad.accumulate(getKey(), g.getGradKey());
  grad.accumulate(getValue(), g.getGradValue());
  return success();
}

} // namespace mt
