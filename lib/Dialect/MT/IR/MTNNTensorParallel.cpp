//===- MTNNTensorParallel.cpp - tensor-parallel rules of the nn ops --------===//
//
// Megatron's layout, derived from the graph: a linear whose output reaches
// only ops that keep a feature split (splitThrough) and then a contraction
// or the loss is column-parallel; the linear contracting a split value is
// row-parallel and yields partial sums; embedding tables split by
// vocabulary rows; the loss over vocabulary-split logits is the
// vocab-parallel cross-entropy; pointwise and row-wise ops keep their
// input's layout. mt-partition-tensor-parallel applies these rules.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

using namespace mlir;

namespace mt {
namespace {

using Layout = TensorLayout;

int64_t lastDim(Value v) { return cast<RankedTensorType>(v.getType()).getRank() - 1; }
RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }
FlatSymbolRefAttr meshOf(OpBuilder &b) {
  return FlatSymbolRefAttr::get(b.getContext(), kTensorParallelMesh);
}

/// Row-parallel: the weight is split along its input features; the product
/// is a partial sum, and the bias is added once, after reducing.
LogicalResult rowParallel(LinearOp op, const Layout &in, TensorParallelBuilder &tp) {
  if (failed(tp.requireParamLayout(op, op.getWeight(), Layout::split(1, in.segments))))
    return failure();
  OpBuilder &b = tp.builder();
  Location loc = op.getLoc();
  Value bias = op.getBias();
  auto partial =
      LinearOp::create(b, loc, op.getResult().getType(), op.getInput(), op.getWeight(), Value());
  tp.recordLayout(partial.getResult(), Layout::of(Layout::Partial));
  Value result = partial.getResult();
  if (bias) {
    if (tp.isParam(bias) && failed(tp.requireParamLayout(op, bias, Layout())))
      return failure();
    Value reduced = tp.reduce(result, loc);
    Value biasValue = tp.layoutOf(reduced).varies() ? tp.vary(bias, loc) : bias;
    auto add = AddOp::create(b, loc, reduced.getType(), reduced, biasValue);
    tp.recordLayout(add.getResult(), tp.layoutOf(reduced));
    result = add.getResult();
  }
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// Column-parallel: every rank computes its rows of every segment from the
/// whole input (gathered first when it is split along the sequence).
LogicalResult columnParallel(LinearOp op, const Layout &in, SmallVector<int64_t> segments,
                             TensorParallelBuilder &tp) {
  for (int64_t s : segments)
    if (failed(tp.checkSplits(op, s, "an output segment of size")))
      return failure();
  if (segments.size() == 1)
    segments.clear();
  if (failed(tp.requireParamLayout(op, op.getWeight(), Layout::split(0, segments))))
    return failure();
  if (op.getBias() && failed(tp.requireParamLayout(op, op.getBias(), Layout::split(0, segments))))
    return failure();
  OpBuilder &b = tp.builder();
  Location loc = op.getLoc();
  Value x = op.getInput();
  if (in.kind == Layout::Replicated) {
    op.getInputMutable().assign(tp.vary(x, loc));
  } else if (in.kind == Layout::Split) {
    auto type = tensorOf(x);
    SmallVector<int64_t> shape(type.getShape());
    shape[in.dim] *= tp.ranks();
    auto gathered = AllGatherOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                        x, meshOf(b), b.getStrArrayAttr({kTensorParallelAxis}),
                                        b.getI64IntegerAttr(in.dim));
    tp.recordLayout(gathered.getResult(), Layout::of(Layout::Varying));
    op.getInputMutable().assign(gathered.getResult());
  }
  tp.setLayout(op.getResult(), Layout::split(lastDim(x), segments));
  return success();
}

/// Norms over the last dimension: rows stay where they are.
LogicalResult partitionNorm(Operation *op, TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(op, /*firstOperand=*/1)))
    return failure();
  tp.reducePartialOperands(op);
  if (tp.layoutOf(op->getOperand(0)).isSplit(lastDim(op->getOperand(0))))
    return tp.fail(op) << "a normalization over a split feature dimension is not supported";
  return tp.partitionElementwise(op);
}

} // namespace

LogicalResult LinearOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  tp.reducePartialOperands(*this);
  Layout in = tp.layoutOf(getInput());
  if (in.isSplit(lastDim(getInput())))
    return rowParallel(*this, in, tp);
  if (auto segments = tp.columnSegments(getResult()))
    return columnParallel(*this, in, *segments, tp);
  // Replicated weights: the linear runs row by row on whatever piece of the
  // input this rank has.
  if (failed(tp.requireParamLayout(*this, getWeight(), Layout())) ||
      (getBias() && failed(tp.requireParamLayout(*this, getBias(), Layout()))))
    return failure();
  if (in.kind == Layout::Varying)
    return tp.fail(*this) << "internal: a replicated linear on a gathered input";
  if (in.varies())
    tp.varyReplicatedOperands(*this);
  tp.setLayout(getResult(), in);
  return success();
}

int64_t LinearOp::splitThrough(unsigned operand, int64_t dim) {
  // A row-parallel contraction.
  return operand == 0 && dim == lastDim(getInput()) ? kSplitConsumed : kSplitBlocked;
}

/// Logits split along a token dimension (a small head, such as BERT's
/// sentence-order classifier, on a sequence-parallel activation): each rank
/// puts its piece in place among zeros and a sum over the ranks makes the
/// whole logits on every rank. The sum's adjoint reaches every rank whole,
/// and the placement's is this rank's own piece, so gradients stay exact.
template <typename LossOp>
static LogicalResult wholeLogits(LossOp op, const Layout &in, TensorParallelBuilder &tp) {
  OpBuilder &b = tp.builder();
  Location loc = op.getLoc();
  auto piece = tensorOf(op.getLogits());
  SmallVector<int64_t> shape(piece.getShape());
  shape[in.dim] *= tp.ranks();
  Value whole = ShardSliceGradOp::create(
      b, loc, RankedTensorType::get(shape, piece.getElementType()), op.getLogits(),
      tp.axisIndex(loc), b.getI64IntegerAttr(in.dim), b.getI64IntegerAttr(tp.ranks()));
  // A plain all-reduce: tp.reduce would scatter a sequence-parallel shape again.
  auto sum = AllReduceOp::create(b, loc, whole.getType(), whole, meshOf(b),
                                 b.getStrArrayAttr({kTensorParallelAxis}),
                                 ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  tp.recordLayout(sum.getResult(), Layout());
  op.getLogitsMutable().assign(sum.getResult());
  tp.recordLayout(op.getResult(), Layout());
  return success();
}

LogicalResult CrossEntropyOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  tp.reducePartialOperands(*this);
  Layout in = tp.layoutOf(getLogits());
  if (in.kind == Layout::Replicated || in.kind == Layout::Varying) {
    tp.recordLayout(getResult(), Layout());
    return success();
  }
  if (in.kind == Layout::Split && !in.isSplit(lastDim(getLogits())))
    return wholeLogits(*this, in, tp);
  if (!in.isSplit(lastDim(getLogits())))
    return tp.fail(*this) << "the logits are "
                          << (in.kind == Layout::Partial ? "partial sums" : "split")
                          << ", not split along the vocabulary";
  // Vocab-parallel cross-entropy: each rank reduces its piece of every row;
  // three all-reduces combine the row maximum, the softmax denominator and
  // the label's logit.
  OpBuilder &b = tp.builder();
  Location loc = getLoc();
  auto logits = tensorOf(getLogits());
  int64_t localClasses = logits.getShape().back();
  int64_t classes = getNumClassesAttr() ? getNumClassesAttr().getInt() : localClasses * tp.ranks();
  auto rowType = RankedTensorType::get(logits.getShape().drop_back(), logits.getElementType());
  auto mesh = meshOf(b);
  auto axes = b.getStrArrayAttr({kTensorParallelAxis});
  auto sum = ReductionKindAttr::get(b.getContext(), ReductionKind::sum);
  Value index = tp.axisIndex(loc);
  Value localMax =
      VocabParallelMaxOp::create(b, loc, rowType, getLogits(), index, b.getI64IntegerAttr(classes));
  Value max = AllReduceOp::create(b, loc, rowType, localMax, mesh, axes,
                                  ReductionKindAttr::get(b.getContext(), ReductionKind::max));
  auto stats = VocabParallelStatsOp::create(b, loc, rowType, rowType, getLogits(), index,
                                            getLabels(), max, b.getI64IntegerAttr(classes));
  Value sumExp = AllReduceOp::create(b, loc, rowType, stats.getSumExp(), mesh, axes, sum);
  Value labelLogit = AllReduceOp::create(b, loc, rowType, stats.getLabelLogit(), mesh, axes, sum);
  auto loss = CrossEntropyFromStatsOp::create(b, loc, getResult().getType(), sumExp, labelLogit,
                                              max, getLossMask());
  tp.recordLayout(loss.getResult(), Layout());
  getResult().replaceAllUsesWith(loss.getResult());
  erase();
  return success();
}

LogicalResult AccuracyOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  tp.reducePartialOperands(*this);
  Layout in = tp.layoutOf(getLogits());
  if (in.kind == Layout::Replicated || in.kind == Layout::Varying) {
    tp.recordLayout(getResult(), Layout());
    return success();
  }
  if (in.kind == Layout::Split && !in.isSplit(lastDim(getLogits())))
    return wholeLogits(*this, in, tp);
  if (!in.isSplit(lastDim(getLogits())))
    return tp.fail(*this) << "the logits are partial sums, not split along the vocabulary";
  // Vocab-parallel: the row maximum and the label's logit, reduced as the
  // vocab-parallel loss reduces them (the same ops, so they are shared).
  OpBuilder &b = tp.builder();
  Location loc = getLoc();
  auto logits = tensorOf(getLogits());
  int64_t classes =
      getNumClassesAttr() ? getNumClassesAttr().getInt() : logits.getShape().back() * tp.ranks();
  auto rowType = RankedTensorType::get(logits.getShape().drop_back(), logits.getElementType());
  auto mesh = meshOf(b);
  auto axes = b.getStrArrayAttr({kTensorParallelAxis});
  Value index = tp.axisIndex(loc);
  Value localMax =
      VocabParallelMaxOp::create(b, loc, rowType, getLogits(), index, b.getI64IntegerAttr(classes));
  Value max = AllReduceOp::create(b, loc, rowType, localMax, mesh, axes,
                                  ReductionKindAttr::get(b.getContext(), ReductionKind::max));
  auto stats = VocabParallelStatsOp::create(b, loc, rowType, rowType, getLogits(), index,
                                            getLabels(), max, b.getI64IntegerAttr(classes));
  Value labelLogit =
      AllReduceOp::create(b, loc, rowType, stats.getLabelLogit(), mesh, axes,
                          ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  auto acc =
      AccuracyFromStatsOp::create(b, loc, getResult().getType(), labelLogit, max, getLossMask());
  tp.recordLayout(acc.getResult(), Layout());
  getResult().replaceAllUsesWith(acc.getResult());
  erase();
  return success();
}

int64_t AccuracyOp::splitThrough(unsigned operand, int64_t dim) {
  // Vocab-parallel, as the loss.
  return operand == 0 && dim == lastDim(getLogits()) ? kSplitConsumed : kSplitBlocked;
}

int64_t CrossEntropyOp::splitThrough(unsigned operand, int64_t dim) {
  // The vocab-parallel loss.
  return operand == 0 && dim == lastDim(getLogits()) ? kSplitConsumed : kSplitBlocked;
}

LogicalResult EmbeddingOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  // Vocab-parallel: each rank looks up the ids its rows hold.
  if (!tp.isParam(getTable()))
    return tp.fail(*this) << "the embedding table must be a parameter";
  if (failed(tp.requireParamLayout(*this, getTable(), Layout::split(0))))
    return failure();
  getShardMutable().assign(tp.axisIndex(getLoc()));
  tp.recordLayout(getResult(), Layout::of(Layout::Partial));
  return success();
}

LogicalResult PositionEmbeddingOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireParamLayout(*this, getTable(), Layout())))
    return failure();
  tp.recordLayout(getResult(), Layout());
  return success();
}

LogicalResult LayerNormOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  return partitionNorm(*this, tp);
}

LogicalResult RmsNormOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  return partitionNorm(*this, tp);
}

LogicalResult DropoutOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(*this)) || failed(tp.partitionElementwise(*this)))
    return failure();
  // Each rank draws the mask of its piece, keyed by global positions.
  Layout in = tp.layoutOf(getResult());
  if (in.kind == Layout::Split) {
    OpBuilder &b = tp.builder();
    getShardMutable().assign(tp.axisIndex(getLoc()));
    setShardDimAttr(b.getI64IntegerAttr(in.dim));
    setShardPartsAttr(b.getI64IntegerAttr(tp.ranks()));
  }
  return success();
}

int64_t DropoutOp::splitThrough(unsigned, int64_t dim) { return dim; }

LogicalResult SoftmaxOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(*this)) || failed(tp.partitionElementwise(*this)))
    return failure();
  if (tp.layoutOf(getResult()).isSplit(lastDim(getResult())))
    return tp.fail(*this) << "a softmax over a split dimension is not supported";
  return success();
}

int64_t SoftmaxOp::splitThrough(unsigned, int64_t dim) {
  return dim != lastDim(getResult()) ? dim : kSplitBlocked;
}

LogicalResult LogSoftmaxOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  if (failed(tp.requireReplicatedParams(*this)) || failed(tp.partitionElementwise(*this)))
    return failure();
  if (tp.layoutOf(getResult()).isSplit(lastDim(getResult())))
    return tp.fail(*this) << "a log-softmax over a split dimension is not supported";
  return success();
}

int64_t LogSoftmaxOp::splitThrough(unsigned, int64_t dim) {
  return dim != lastDim(getResult()) ? dim : kSplitBlocked;
}

LogicalResult SplitOp::partitionTensorParallel(TensorParallelBuilder &tp) {
  Layout in = tp.layoutOf(getInput());
  int64_t dim = getDimAttr().getInt();
  SmallVector<int64_t> sizes(getSizes());
  if (in.isSplit(dim)) {
    // Each piece of a segmented split is one segment: locally 1/tp of it.
    if (in.segments != sizes)
      return tp.fail(*this) << "splits a dimension whose segments are laid out differently";
    for (int64_t &size : sizes)
      size /= tp.ranks();
    setSizes(sizes);
    for (Value r : getResults())
      tp.setLayout(r, Layout::split(dim));
    return success();
  }
  for (Value r : getResults())
    tp.setLayout(r, in);
  return success();
}

int64_t SplitOp::splitThrough(unsigned, int64_t dim) { return dim; }

} // namespace mt
