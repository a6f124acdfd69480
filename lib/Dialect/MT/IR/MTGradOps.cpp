//===- MTGradOps.cpp - verifiers of the backward ops -----------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult EmbeddingGradOp::verify() {
  if (!isIntegerTensor(getIds()))
    return violates(*this, 1) << "ids must be i32 or i64, got " << getIds().getType();
  auto grad = tensorType(getGrad()), ids = tensorType(getIds());
  if (!isFloatTensor(getGrad()) || grad.getRank() != ids.getRank() + 1 ||
      !shapesAgree(grad.getShape().drop_back(), ids.getShape()))
    return violates(*this, 2) << "grad must be floating-point [" << shapeStr(ids.getShape())
                              << ", hidden], got " << grad;
  auto table = tensorType(getResult());
  if (table.getRank() != 2 || table.getElementType() != grad.getElementType() ||
      !dimsAgree(table.getDimSize(1), grad.getShape().back()))
    return violates(*this, 3) << "the result must be the table [vocab, "
                              << shapeStr(grad.getShape().back()) << "] of "
                              << grad.getElementType() << ", got " << table;
  if (getShard() && !isIndexScalar(getShard()))
    return violates(*this, 4) << "the shard index must be tensor<i64>, got "
                              << getShard().getType();
  if (getPlus() && getPlus().getType() != getResult().getType())
    return violates(*this, 5) << "the tensor added with `plus` must have the result's type "
                              << getResult().getType() << ", got " << getPlus().getType();
  return success();
}

LogicalResult PositionEmbeddingGradOp::verify() {
  auto grad = tensorType(getGrad()), table = tensorType(getResult());
  if (grad.getRank() != 2 || !isFloatTensor(getGrad()))
    return violates(*this, 1) << "grad must be floating-point [seq, hidden], got " << grad;
  if (table.getRank() != 2 || table.getElementType() != grad.getElementType() ||
      !dimsAgree(table.getDimSize(1), grad.getDimSize(1)) ||
      (!table.isDynamicDim(0) && !grad.isDynamicDim(0) && table.getDimSize(0) < grad.getDimSize(0)))
    return violates(*this, 2) << "the result must be the table [positions >= "
                              << shapeStr(grad.getDimSize(0)) << ", "
                              << shapeStr(grad.getDimSize(1)) << "], got " << table;
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  if (failed(verifyNorm(*this, getInput(), {getGamma()}, getEpsilon().convertToDouble())))
    return failure();
  if (getResidualGrad() && getResidualGrad().getType() != getInput().getType())
    return violates(*this, 4) << "the gradient added with `plus` must have the input's type "
                              << getInput().getType() << ", got " << getResidualGrad().getType();
  return success();
}

LogicalResult RmsNormGradOp::verify() {
  return verifyNorm(*this, getInput(), {getGamma()}, getEpsilon().convertToDouble());
}

LogicalResult GeluGradOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

LogicalResult LogSoftmaxGradOp::verify() {
  if (tensorType(getOutput()).getRank() < 1 || !isFloatTensor(getOutput()))
    return violates(*this, 1) << "the output must be a floating-point tensor of rank >= 1, got "
                              << getOutput().getType();
  return success();
}

LogicalResult SoftmaxGradOp::verify() {
  if (tensorType(getOutput()).getRank() < 1 || !isFloatTensor(getOutput()))
    return violates(*this, 1) << "the output must be a floating-point tensor of rank >= 1, "
                                 "got "
                              << getOutput().getType();
  double scale = getScale().convertToDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return violates(*this, 2) << "scale must be positive and finite, got " << scale;
  return success();
}

LogicalResult AttentionKVGradOp::verify() {
  auto lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  auto result = tensorType(getResult());
  if (lhs.getRank() != 4 || rhs.getRank() != 4 || result.getRank() != 4 ||
      !isFloatTensor(getLhs()) || lhs.getElementType() != rhs.getElementType() ||
      result.getElementType() != lhs.getElementType())
    return violates(*this, 1) << "operands and result must be rank-4 floating-point "
                                 "tensors of one element type";
  if (!dimsAgree(lhs.getDimSize(0), rhs.getDimSize(0)) ||
      !dimsAgree(lhs.getDimSize(1), rhs.getDimSize(1)) ||
      !dimsAgree(lhs.getDimSize(2), rhs.getDimSize(2)))
    return violates(*this, 2) << "lhs [batch, heads, queries, keys] and rhs [batch, heads, "
                                 "queries, head_dim] must agree in batch, heads and queries, "
                                 "got "
                              << lhs << " and " << rhs;
  int64_t heads = lhs.getDimSize(1), kvHeads = result.getDimSize(1);
  bool grouped = ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
                 (kvHeads >= 1 && heads % kvHeads == 0);
  if (!grouped || !dimsAgree(result.getDimSize(0), lhs.getDimSize(0)) ||
      !dimsAgree(result.getDimSize(2), lhs.getDimSize(3)) ||
      !dimsAgree(result.getDimSize(3), rhs.getDimSize(3)))
    return violates(*this, 3) << "the result must be [batch, key heads dividing " << shapeStr(heads)
                              << ", " << shapeStr(lhs.getDimSize(3)) << ", "
                              << shapeStr(rhs.getDimSize(3)) << "], got " << result;
  return success();
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(verifyCrossEntropyOperands(*this, getLogits(), getLabels(), getLossMask(),
                                        getNumClassesAttr())))
    return failure();
  if (!typesAgree(getResult().getType(), getLogits().getType()))
    return violates(*this, 4) << "the result must have the logits' type " << getLogits().getType()
                              << ", got " << getResult().getType();
  auto grad = tensorType(getGrad());
  Type loss = lossElementType(tensorType(getLogits()).getElementType());
  if (grad.getRank() != 0 || grad.getElementType() != loss)
    return violates(*this, 6) << "grad must be " << typeStr(RankedTensorType::get({}, loss))
                              << " (the loss's gradient), got " << grad;
  return success();
}

LogicalResult VocabParallelStatsGradOp::verify() {
  if (failed(verifyVocabParallelOperands(*this, getLogits(), getShard(), getLabels(),
                                         {getMax(), getGradSumExp(), getGradLabelLogit()})))
    return failure();
  if (getResult().getType() != getLogits().getType())
    return violates(*this, 5) << "the result must be the logits' type " << getLogits().getType()
                              << ", got " << getResult().getType();
  if (getNumClassesAttr().getInt() < 1)
    return violates(*this, 6) << "num_classes must be >= 1, got " << getNumClassesAttr().getInt();
  return success();
}

LogicalResult CrossEntropyFromStatsGradOp::verify() {
  auto grad = tensorType(getGrad()), sumExp = tensorType(getSumExp());
  if (grad.getRank() != 0 || !isFloatTensor(getGrad()))
    return violates(*this, 1) << "grad must be a floating-point scalar, got " << grad;
  if (!isFloatTensor(getSumExp()))
    return violates(*this, 2) << "sum_exp must be floating-point, got " << sumExp;
  if (getLossMask()) {
    auto mask = tensorType(getLossMask());
    if (!isFloatTensor(getLossMask()) || !shapesAgree(mask.getShape(), sumExp.getShape()))
      return violates(*this, 2) << "the loss mask must be floating-point "
                                << shapeStr(sumExp.getShape()) << ", got " << mask;
  }
  if (getGradSumExp().getType() != sumExp || getGradLabelLogit().getType() != sumExp)
    return violates(*this, 3) << "both results must be " << sumExp;
  return success();
}

LogicalResult AccumulateOp::verify() {
  if (!isFloatTensor(getValue()))
    return violates(*this, 1) << "the accumulated value must be floating-point, got "
                              << getValue().getType();
  return success();
}

LogicalResult GradientReadyOp::verify() {
  if (getIndexAttr().getInt() < 0)
    return violates(*this, 1) << "index must be non-negative, got " << getIndexAttr().getInt();
  auto fn = (*this)->getParentOfType<mlir::FunctionOpInterface>();
  int64_t arg = getAccumulatorAttr().getInt();
  if (!fn || arg < 0 || arg >= static_cast<int64_t>(fn.getNumArguments()) ||
      fn.getArgument(static_cast<unsigned>(arg)).getType() != getValue().getType())
    return violates(*this, 2) << "accumulator " << arg
                              << " must be an argument of the enclosing function of the value's "
                                 "type "
                              << getValue().getType();
  auto type = tensorType(getValue());
  if (auto layer = getLayerAttr())
    if (type.getRank() < 2 || layer.getInt() < 0 || layer.getInt() >= type.getDimSize(0))
      return violates(*this, 3) << "layer " << layer.getInt()
                                << " must index the first dimension of a stacked accumulator, got "
                                << type;
  return success();
}

Value EmbeddingGradOp::getInPlaceOperand() { return getPlus(); }

Value AccumulateOp::getInPlaceOperand() { return getInto(); }

LogicalResult RelativePositionBiasGradOp::verify() {
  auto grad = tensorType(getGrad());
  if (grad.getRank() != 4 || !isFloatTensor(getGrad()))
    return violates(*this, 1) << "grad must be floating-point [batch, heads, queries, keys], got "
                              << grad;
  auto table = tensorType(getResult());
  if (table.getRank() != 2 || table.getElementType() != grad.getElementType() ||
      !dimsAgree(table.getDimSize(1), grad.getDimSize(1)))
    return violates(*this, 2) << "the result must be the table [num_buckets, "
                              << shapeStr(grad.getDimSize(1)) << "] of " << grad.getElementType()
                              << ", got " << table;
  return verifyRelativeBuckets(*this, table.getDimSize(0), getBidirectional(),
                               getMaxDistanceAttr().getInt());
}
