//===- TensorParallelBuilder.cpp - what many tensor-parallel rules share ---===//
#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

TensorParallelBuilder::~TensorParallelBuilder() = default;

RankedTensorType TensorParallelBuilder::localType(RankedTensorType type, const TensorLayout &l) {
  if (l.kind != TensorLayout::Split)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape[l.dim] /= ranks();
  return RankedTensorType::get(shape, type.getElementType());
}

LogicalResult TensorParallelBuilder::checkSplits(Operation *op, int64_t size, StringRef what) {
  if (size % ranks() == 0)
    return success();
  return fail(op) << what << " " << size << " does not split evenly over " << ranks()
                  << " tensor-parallel ranks; choose a --tp that divides it";
}

void TensorParallelBuilder::reducePartialOperands(Operation *op) {
  for (OpOperand &o : op->getOpOperands())
    if (layoutOf(o.get()).kind == TensorLayout::Partial)
      o.set(reduce(o.get(), op->getLoc()));
}

void TensorParallelBuilder::varyReplicatedOperands(Operation *op) {
  for (OpOperand &o : op->getOpOperands()) {
    auto t = dyn_cast<RankedTensorType>(o.get().getType());
    if (t && isa<FloatType>(t.getElementType()) &&
        layoutOf(o.get()).kind == TensorLayout::Replicated)
      o.set(vary(o.get(), op->getLoc()));
  }
}

LogicalResult TensorParallelBuilder::requireReplicatedParams(Operation *op, unsigned firstOperand) {
  for (Value v : op->getOperands().drop_front(firstOperand))
    if (isParam(v) && failed(requireParamLayout(op, v, TensorLayout())))
      return failure();
  return success();
}

LogicalResult TensorParallelBuilder::partitionElementwise(Operation *op) {
  reducePartialOperands(op);
  TensorLayout in = layoutOf(op->getOperand(0));
  if (in.varies())
    varyReplicatedOperands(op);
  for (Value r : op->getResults())
    setLayout(r, in);
  return success();
}

} // namespace mt
