//===- MTCollectiveGradients.cpp - VJP rules of collectives and sharding ---===//
//
// The transposes of Megatron's f and g: a sum all-reduce passes its adjoint
// to every addend, an all-gather's adjoint is reduce-scattered, and the
// reverse; a value that starts to vary over ranks sums its adjoints.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

LogicalResult AllReduceOp::buildVjp(GradientBuilder &grad) {
  // The sum's adjoint reaches every addend unchanged; the adjoint of the
  // replicated result is the same on every rank.
  if (getReduction() != ReductionKind::sum)
    return emitError("mt-derive-gradients: only a sum all-reduce is differentiable");
  grad.accumulate(getInput(), grad.resultAdjoint(*this));
  return success();
}

LogicalResult AllGatherOp::buildVjp(GradientBuilder &grad) {
  // The gathered value feeds per-rank work: its adjoint is a partial sum,
  // of which each rank keeps its own piece, summed.
  grad.accumulate(
      getInput(),
      ReduceScatterOp::create(grad.builder(), grad.loc(), getInput().getType(),
                              grad.resultAdjoint(*this), getMeshAttr(), getAxesAttr(), getDimAttr(),
                              ReductionKindAttr::get(getContext(), ReductionKind::sum)));
  return success();
}

LogicalResult ReduceScatterOp::buildVjp(GradientBuilder &grad) {
  if (getReduction() != ReductionKind::sum)
    return emitError("mt-derive-gradients: only a sum reduce-scatter is differentiable");
  grad.accumulate(getInput(), AllGatherOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                                  grad.resultAdjoint(*this), getMeshAttr(),
                                                  getAxesAttr(), getDimAttr()));
  return success();
}

LogicalResult VaryOp::buildVjp(GradientBuilder &grad) {
  // Each rank's adjoint is its own contribution: sum them (Megatron's f).
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(),
                  AllReduceOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getMeshAttr(),
                                      getAxesAttr(),
                                      ReductionKindAttr::get(getContext(), ReductionKind::sum)));
  return success();
}

LogicalResult ShardSliceGradOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getGrad(), ShardSliceOp::create(grad.builder(), grad.loc(), getGrad().getType(),
                                                  grad.resultAdjoint(*this), getIndex(),
                                                  getDimAttr(), getPartsAttr()));
  return success();
}

LogicalResult AxisIndexOp::buildVjp(GradientBuilder &) { return success(); } // an integer

LogicalResult ShardSliceOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(),
                  ShardSliceGradOp::create(grad.builder(), grad.loc(), getInput().getType(),
                                           grad.resultAdjoint(*this), getIndex(), getDimAttr(),
                                           getPartsAttr()));
  return success();
}

LogicalResult ShardOp::buildVjp(GradientBuilder &grad) {
  grad.accumulate(getInput(), grad.resultAdjoint(*this));
  return success();
}

} // namespace mt
