//===- MTStructureTensorParallel.cpp - tensor-parallel rule of layer stacks -===//
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

using namespace mlir;

namespace mt {

/// The body is partitioned once for every layer: each carried value enters
/// in its layout and must leave in it, and each stacked weight's per-layer
/// slice shares the stacked parameter's layout.
LogicalResult LayerStackOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  tp.reducePartialOperands(*this);
  Block &body = getBody().front();
  unsigned numCarried = getCarried().size();
  SmallVector<TensorLayout> carried;
  for (auto [i, v] : llvm::enumerate(getCarried())) {
    carried.push_back(tp.layoutOf(v));
    tp.setLayout(body.getArgument(i), tp.layoutOf(v));
  }
  for (auto [i, v] : llvm::enumerate(getStacked())) {
    if (!tp.isParam(v))
      return tp.fail(*this) << "stacked operand #" << i << " is not a parameter";
    tp.bindLayerParam(body.getArgument(numCarried + i), v);
  }
  if (failed(tp.partitionBlock(body)))
    return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  tp.builder().setInsertionPoint(yield);
  tp.reducePartialOperands(yield);
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    if (!(tp.layoutOf(v) == carried[i]))
      return tp.fail(*this) << "a layer must return its carried value in the layout it received";
  for (auto [i, r] : llvm::enumerate(getResults()))
    tp.setLayout(r, carried[i]);
  return success();
}

} // namespace mt
