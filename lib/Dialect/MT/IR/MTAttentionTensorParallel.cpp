//===- MTAttentionTensorParallel.cpp - tensor-parallel rules of attention --===//
//
// Attention is split by heads: the column-parallel QKV projection's output
// is split along its features, split_heads turns that into a split along
// the head dimension, scores, softmax and context stay split by heads, and
// merge_heads hands the row-parallel output projection a feature split.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

using namespace mlir;

namespace mt {
namespace {

using Layout = TensorLayout;

/// Scores and context: both operands split by heads alike, or neither.
LogicalResult partitionHeadwise(Operation *op, TensorParallelBuilder &tp) {
  Layout a = tp.layoutOf(op->getOperand(0)), c = tp.layoutOf(op->getOperand(1));
  if (a.kind == Layout::Split || c.kind == Layout::Split) {
    if (!a.isSplit(1) || !c.isSplit(1))
      return tp.fail(op) << "attention needs queries, keys and values split by heads alike";
    tp.setLayout(op->getResult(0), Layout::split(1));
    return success();
  }
  if (a.varies() || c.varies())
    return tp.fail(op) << "attention on a value that differs between ranks but is not split by "
                          "heads";
  return success();
}

} // namespace

LogicalResult SplitHeadsOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  Layout in = tp.layoutOf(getInput());
  if (in.isSplit(2)) {
    int64_t heads = getNumHeadsAttr().getInt();
    if (failed(tp.checkSplits(*this, heads, "the attention head count")))
      return failure();
    setNumHeadsAttr(tp.builder().getI64IntegerAttr(heads / tp.ranks()));
    tp.setLayout(getResult(), Layout::split(1));
    return success();
  }
  if (in.kind == Layout::Split)
    return tp.fail(*this) << "splitting heads of a tensor split along dimension " << in.dim;
  tp.setLayout(getResult(), in);
  return success();
}

int64_t SplitHeadsOp::splitThrough(unsigned, int64_t dim) {
  return dim == 2 ? 1 : kSplitBlocked; // features -> heads
}

LogicalResult MergeHeadsOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  Layout in = tp.layoutOf(getInput());
  if (in.kind == Layout::Split && in.dim != 1)
    return tp.fail(*this) << "merging heads of a tensor split along dimension " << in.dim;
  tp.setLayout(getResult(), in.kind == Layout::Split ? Layout::split(2) : in);
  return success();
}

int64_t MergeHeadsOp::splitThrough(unsigned, int64_t dim) {
  return dim == 1 ? 2 : kSplitBlocked; // heads -> features
}

LogicalResult AttentionScoresOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  return partitionHeadwise(*this, tp);
}

int64_t AttentionScoresOp::splitThrough(unsigned, int64_t dim) {
  return dim == 1 ? dim : kSplitBlocked;
}

/// A KV cache under tensor parallelism holds this rank's heads, as the
/// keys and values written into it do.
LogicalResult CacheInsertOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  return partitionHeadwise(*this, tp);
}

int64_t CacheInsertOp::splitThrough(unsigned, int64_t dim) {
  return dim == 1 ? dim : kSplitBlocked;
}

LogicalResult AttentionContextOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  return partitionHeadwise(*this, tp);
}

int64_t AttentionContextOp::splitThrough(unsigned, int64_t dim) {
  return dim == 1 ? dim : kSplitBlocked;
}

LogicalResult RotaryOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(*this)))
    return failure();
  return tp.partitionElementwise(*this);
}

int64_t RotaryOp::splitThrough(unsigned, int64_t dim) { return dim == 1 ? dim : kSplitBlocked; }

LogicalResult AlibiOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(*this)) || failed(tp.partitionElementwise(*this)))
    return failure();
  Layout out = tp.layoutOf(getResult());
  if (out.kind == Layout::Split && out.dim != 1)
    return tp.fail(*this) << "ALiBi biases need the scores whole or split along heads, got a "
                             "split along dimension "
                          << out.dim;
  // A rank's heads are [rank * n, (rank + 1) * n) of the model's: their
  // slopes are the global heads'.
  if (out.isSplit(1))
    getShardMutable().assign(tp.axisIndex(getLoc()));
  return success();
}

int64_t AlibiOp::splitThrough(unsigned operand, int64_t dim) {
  return operand == 0 && dim == 1 ? dim : kSplitBlocked;
}

LogicalResult RelativePositionBiasOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  // The table's heads are split with the scores'; replicated scores (one
  // rank's whole attention) take the whole table.
  tp.reducePartialOperands(*this);
  Layout in = tp.layoutOf(getInput());
  if (in.kind == Layout::Split && in.dim != 1)
    return tp.fail(*this) << "relative position biases need the scores whole or split along "
                             "heads, got a split along dimension "
                          << in.dim;
  Layout table = in.isSplit(1) ? Layout::split(1) : Layout();
  if (!tp.isParam(getTable()))
    return tp.fail(*this) << "the relative position bias table must be a parameter";
  if (failed(tp.requireParamLayout(*this, getTable(), table)))
    return failure();
  if (in.varies())
    tp.varyReplicatedOperands(*this);
  tp.setLayout(getResult(), in);
  return success();
}

int64_t RelativePositionBiasOp::splitThrough(unsigned operand, int64_t dim) {
  return operand == 0 && dim == 1 ? dim : kSplitBlocked;
}

} // namespace mt
