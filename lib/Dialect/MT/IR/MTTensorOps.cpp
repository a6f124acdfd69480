//===- MTTensorOps.cpp - reshaping, reductions and layer slicing -----------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult ZerosOp::verify() {
  if (!tensorType(getResult()).hasStaticShape())
    return violates(*this, 1) << "the result must have a static shape, got "
                              << getResult().getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = tensorType(getInput()), out = tensorType(getResult());
  if (in.getElementType() != out.getElementType())
    return violates(*this, 1) << "input and result must share an element type";
  if (in.hasStaticShape() && out.hasStaticShape() && in.getNumElements() != out.getNumElements())
    return violates(*this, 2) << "the element count changes from " << in.getNumElements() << " to "
                              << out.getNumElements();
  return success();
}

LogicalResult ConvertOp::verify() {
  auto in = tensorType(getInput()), out = tensorType(getResult());
  if (in.getShape() != out.getShape())
    return violates(*this, 1) << "input and result must have one shape, got " << in << " and "
                              << out;
  if (!isa<FloatType>(in.getElementType()) || !isa<FloatType>(out.getElementType()))
    return violates(*this, 2) << "input and result must be float tensors, got " << in << " and "
                              << out;
  return success();
}

SmallVector<Type> ConcatOp::inferResultTypes() {
  auto first = tensorType(getInputs().front());
  SmallVector<int64_t> shape(first.getShape());
  int64_t dim = getDimAttr().getInt();
  shape[dim] = 0;
  for (Value v : getInputs()) {
    int64_t size = tensorType(v).getDimSize(dim);
    shape[dim] = ShapedType::isDynamic(size) || ShapedType::isDynamic(shape[dim])
                     ? ShapedType::kDynamic
                     : shape[dim] + size;
  }
  return {RankedTensorType::get(shape, first.getElementType())};
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return violates(*this, 1) << "expected at least one input";
  auto first = tensorType(getInputs().front());
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= first.getRank())
    return violates(*this, 1) << "dim " << dim << " is outside rank " << first.getRank();
  for (Value v : getInputs()) {
    auto t = tensorType(v);
    bool agree = t.getRank() == first.getRank() && t.getElementType() == first.getElementType();
    for (int64_t d = 0; agree && d < t.getRank(); ++d)
      agree = d == dim || dimsAgree(t.getDimSize(d), first.getDimSize(d));
    if (!agree)
      return violates(*this, 2) << "inputs must agree in rank, element type and every "
                                   "dimension but "
                                << dim << ", got " << first << " and " << t;
  }
  SmallVector<int64_t> expected = inferredShape(*this);
  if (!shapesAgree(tensorType(getResult()).getShape(), expected) ||
      tensorType(getResult()).getElementType() != first.getElementType())
    return violates(*this, 3) << "the result must be " << shapeStr(expected) << ", got "
                              << getResult().getType();
  return success();
}

LogicalResult SumToOp::verify() {
  auto in = tensorType(getInput()), out = tensorType(getResult());
  if (in.getElementType() != out.getElementType())
    return violates(*this, 1) << "input and result must share an element type";
  if (out.getRank() > in.getRank() ||
      !shapesAgree(out.getShape(), in.getShape().take_back(out.getRank())))
    return violates(*this, 2) << "the result shape " << shapeStr(out.getShape())
                              << " must be a suffix of the input shape " << shapeStr(in.getShape());
  return success();
}

SmallVector<Type> SliceLayerOp::inferResultTypes() {
  auto in = tensorType(getInput());
  return {RankedTensorType::get(in.getShape().drop_front(), in.getElementType())};
}

LogicalResult SliceLayerOp::verify() {
  auto in = tensorType(getInput());
  if (in.getRank() < 1 || in.isDynamicDim(0))
    return violates(*this, 1) << "the input needs a static leading layer dimension, got " << in;
  int64_t layer = getLayerAttr().getInt();
  if (layer < 0 || layer >= in.getDimSize(0))
    return violates(*this, 2) << "layer " << layer << " is outside [0, " << in.getDimSize(0) << ")";
  if (!typesAgree(getResult().getType(), inferResultTypes()[0]))
    return violates(*this, 3) << "the result must be " << inferResultTypes()[0] << ", got "
                              << getResult().getType();
  return success();
}

SmallVector<Type> InsertLayerOp::inferResultTypes() { return {getInto().getType()}; }

LogicalResult InsertLayerOp::verify() {
  auto into = tensorType(getInto()), value = tensorType(getValue());
  if (into.getRank() < 1 || into.isDynamicDim(0))
    return violates(*this, 1) << "the stacked tensor needs a static leading layer dimension, got "
                              << into;
  int64_t layer = getLayerAttr().getInt();
  if (layer < 0 || layer >= into.getDimSize(0))
    return violates(*this, 2) << "layer " << layer << " is outside [0, " << into.getDimSize(0)
                              << ")";
  auto slice = RankedTensorType::get(into.getShape().drop_front(), into.getElementType());
  if (!typesAgree(value, slice))
    return violates(*this, 3) << "the value must be one layer's slice " << slice << ", got "
                              << value;
  return success();
}

SmallVector<Type> StackLayersOp::inferResultTypes() {
  auto first = tensorType(getInputs().front());
  SmallVector<int64_t> shape{static_cast<int64_t>(getInputs().size())};
  llvm::append_range(shape, first.getShape());
  return {RankedTensorType::get(shape, first.getElementType())};
}

LogicalResult StackLayersOp::verify() {
  if (getInputs().empty())
    return violates(*this, 1) << "expected at least one input";
  for (Value v : getInputs())
    if (!typesAgree(v.getType(), getInputs().front().getType()))
      return violates(*this, 1) << "every input must have one type, got "
                                << getInputs().front().getType() << " and " << v.getType();
  if (!typesAgree(getResult().getType(), inferResultTypes()[0]))
    return violates(*this, 2) << "the result must be " << inferResultTypes()[0] << ", got "
                              << getResult().getType();
  return success();
}

Value SliceLayerOp::getInPlaceOperand() { return getInput(); }

Value InsertLayerOp::getInPlaceOperand() { return getInto(); }
