//===- MTTensorGradients.cpp - VJP rules of the tensor ops -----------------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

LogicalResult ZerosOp::buildVjp(GradientBuilder &) { return success(); } // a constant

LogicalResult ReshapeOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), ReshapeOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                                grad.resultAdjoint(*this)));
  return success();
}

LogicalResult ConvertOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), ConvertOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                                grad.resultAdjoint(*this)));
  return success();
}

LogicalResult ConcatOp::buildVjp(GradientBuilder &grad) {
  SmallVector<int64_t> sizes;
  for (Value v : getInputs())
    sizes.push_back(cast<RankedTensorType>(v.getType()).getDimSize(getDimAttr().getInt()));
  auto split =
      SplitOp::create(grad.builder(), grad.loc(), getInputs().getTypes(), grad.resultAdjoint(*this),
                      getDimAttr(), grad.builder().getDenseI64ArrayAttr(sizes));
  for (auto [v, r] : llvm::zip(getInputs(), split.getResults()))
    grad.accumulate(v, r);
  return success();
}

LogicalResult SliceLayerOp::buildVjp(GradientBuilder &grad) {
  grad.accumulateLayer(getInput(), getLayerAttr().getInt(), grad.resultAdjoint(*this));
  return success();
}

LogicalResult StackLayersOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  for (auto [i, v] : llvm::enumerate(getInputs()))
    grad.accumulate(
        v, SliceLayerOp::create(grad.builder(), grad.loc(), v.getType(), dy,
                                grad.builder().getI64IntegerAttr(static_cast<int64_t>(i))));
  return success();
}

} // namespace mt
