//===- TensorParallelRules.cpp - how layouts flow through ops --------------===//
//
// The rules of mt-partition-tensor-parallel (see PartitionTensorParallel.cpp):
// which linears become column- or row-parallel, the vocab-parallel loss,
// pointwise and row-wise ops, layer stacks, and the reductions of partial
// sums.
//
//===----------------------------------------------------------------------===//
#include "TensorParallelPartitioner.h"

namespace mt {
namespace tensor_parallel {

Value Partitioner::axisIndex(Location loc) {
  return AxisIndexOp::create(b, loc, RankedTensorType::get({}, b.getI64Type()),
                               FlatSymbolRefAttr::get(b.getContext(), kMeshName),
                               b.getStringAttr(kAxis));
}

Value Partitioner::vary(Value v, Location loc) {
  auto op = VaryOp::create(b, loc, v.getType(), v, FlatSymbolRefAttr::get(b.getContext(), kMeshName),
                             b.getStrArrayAttr({kAxis}));
  layouts[op.getResult()] = Layout::of(Layout::Varying);
  return op.getResult();
}

LogicalResult Partitioner::checkSplits(Operation *op, int64_t size, StringRef what) {
  if (size % tp == 0)
    return success();
  return fail(op) << what << " " << size << " does not split evenly over " << tp
                  << " tensor-parallel ranks; choose a --tp that divides it";
}

/// Reduces partial sums right where they are needed (before `b`'s insertion
/// point): all-reduce, or under sequence parallelism reduce-scatter along the
/// sequence of a [batch, seq, hidden] activation.
Value Partitioner::reduce(Value partial, Location loc) {
  auto type = tensorOf(partial);
  auto mesh = FlatSymbolRefAttr::get(b.getContext(), kMeshName);
  auto axes = b.getStrArrayAttr({kAxis});
  if (sp && type.getRank() == 3 && type.getDimSize(1) % tp != 0 && !sequenceError)
    sequenceError = loc;
  if (sp && type.getRank() == 3 && !sequenceError) {
    Layout l = Layout::split(1);
    auto rs = ReduceScatterOp::create(b, loc, localType(type, l), partial, mesh, axes,
                                        b.getI64IntegerAttr(1), ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
    layouts[rs.getResult()] = l;
    return rs.getResult();
  }
  auto ar = AllReduceOp::create(b, loc, type, partial, mesh, axes, ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  layouts[ar.getResult()] = Layout();
  return ar.getResult();
}

LogicalResult Partitioner::requireParamLayout(Operation *user, Value param, const Layout &l) {
  auto [arg, stacked] = paramRoot.lookup(param);
  Layout rootLayout = l;
  if (rootLayout.kind == Layout::Split)
    rootLayout.dim += stacked;
  auto it = paramLayouts.find(arg);
  if (it != paramLayouts.end()) {
    if (it->second == rootLayout)
      return success();
    auto attr = func.getArgAttrOfType<ParamAttr>(arg.getArgNumber(), kParamAttrName);
    auto diag = fail(user) << "parameter '" << (attr ? attr.getName().getValue() : "?") << "'"
                           << " is needed with two different layouts (here and at "
                           << paramDecidedBy[arg]->getName()
                           << "); tensor parallelism cannot shard this model";
    diag.attachNote(paramDecidedBy[arg]->getLoc()) << "first layout chosen here";
    return diag;
  }
  paramLayouts[arg] = rootLayout;
  paramDecidedBy[arg] = user;
  if (l.kind == Layout::Split)
    for (int64_t s : l.segments.empty() ? SmallVector<int64_t>{tensorOf(param).getDimSize(l.dim)}
                                        : l.segments)
      if (failed(checkSplits(user, s, "a parameter dimension of size")))
        return failure();
  setLayout(param, l);
  if (Value(arg) != param)
    setLayout(arg, rootLayout);
  return success();
}

bool Partitioner::keepsSplit(Value v, int64_t dim, int depth) {
  if (depth > 64)
    return false;
  int64_t last = tensorOf(v).getRank() - 1;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned n = use.getOperandNumber();
    bool ok = false;
    if (isa<LinearOp>(user))
      ok = n == 0 && dim == last; // row-parallel contraction
    else if (isa<CrossEntropyOp>(user))
      ok = n == 0 && dim == last; // vocab-parallel loss
    else if (auto s = dyn_cast<SplitOp>(user))
      ok = llvm::all_of(s.getResults(), [&](Value r) { return keepsSplit(r, dim, depth + 1); });
    else if (isa<SplitHeadsOp>(user))
      ok = dim == 2 && keepsSplit(user->getResult(0), 1, depth + 1);
    else if (isa<MergeHeadsOp>(user))
      ok = dim == 1 && keepsSplit(user->getResult(0), 2, depth + 1);
    else if (isa<SoftmaxOp>(user))
      ok = dim != last && keepsSplit(user->getResult(0), dim, depth + 1);
    else if (isa<AttentionScoresOp, AttentionContextOp, RotaryOp>(user))
      ok = dim == 1 && keepsSplit(user->getResult(0), dim, depth + 1);
    else if (isa<DropoutOp, GeluOp, PointwiseOpInterface>(user))
      ok = keepsSplit(user->getResult(0), dim, depth + 1);
    if (!ok)
      return false;
  }
  return !v.use_empty();
}

std::optional<SmallVector<int64_t>> Partitioner::columnSegments(Value out) {
  int64_t last = tensorOf(out).getRank() - 1;
  if (!keepsSplit(out, last, 0))
    return std::nullopt;
  SmallVector<int64_t> segments;
  for (Operation *user : out.getUsers())
    if (auto s = dyn_cast<SplitOp>(user); s && s.getDimAttr().getInt() == last) {
      SmallVector<int64_t> sizes(s.getSizes());
      if (!segments.empty() && segments != sizes)
        return std::nullopt;
      segments = sizes;
    }
  if (segments.empty())
    segments.push_back(tensorOf(out).getDimSize(last));
  return segments;
}

LogicalResult Partitioner::visitLinear(LinearOp op) {
  reducePartialOperands(op);
  Value x = op.getInput();
  Layout in = layoutOf(x);
  int64_t last = tensorOf(x).getRank() - 1;
  Location loc = op.getLoc();

  if (in.isSplit(last)) {
    // Row-parallel: the weight is split along its input features; the
    // product is a partial sum, and the bias is added once, after reducing.
    if (failed(requireParamLayout(op, op.getWeight(), Layout::split(1, in.segments))))
      return failure();
    Value bias = op.getBias();
    b.setInsertionPoint(op);
    auto partial = LinearOp::create(b, loc, op.getResult().getType(), x, op.getWeight(), Value());
    layouts[partial.getResult()] = Layout::of(Layout::Partial);
    Value result = partial.getResult();
    if (bias) {
      if (isParam(bias) && failed(requireParamLayout(op, bias, Layout())))
        return failure();
      Value reduced = reduce(result, loc);
      Value biasValue = layoutOf(reduced).varies() ? vary(bias, loc) : bias;
      auto add = AddOp::create(b, loc, reduced.getType(), reduced, biasValue);
      layouts[add.getResult()] = layoutOf(reduced);
      result = add.getResult();
    }
    op.getResult().replaceAllUsesWith(result);
    op.erase();
    return success();
  }
  b.setInsertionPoint(op);
  if (auto segments = columnSegments(op.getResult())) {
    // Column-parallel: every rank computes its rows of every segment from
    // the whole input.
    for (int64_t s : *segments)
      if (failed(checkSplits(op, s, "an output segment of size")))
        return failure();
    if (segments->size() == 1)
      segments->clear();
    if (failed(requireParamLayout(op, op.getWeight(), Layout::split(0, *segments))))
      return failure();
    if (op.getBias() && failed(requireParamLayout(op, op.getBias(), Layout::split(0, *segments))))
      return failure();
    if (in.kind == Layout::Replicated) {
      op.getInputMutable().assign(vary(x, loc));
    } else if (in.kind == Layout::Split) {
      // A sequence-parallel activation: gather the whole sequence first.
      auto type = tensorOf(x);
      SmallVector<int64_t> shape(type.getShape());
      shape[in.dim] *= tp;
      auto gathered = AllGatherOp::create(b, 
          loc, RankedTensorType::get(shape, type.getElementType()), x,
          FlatSymbolRefAttr::get(b.getContext(), kMeshName), b.getStrArrayAttr({kAxis}),
          b.getI64IntegerAttr(in.dim));
      layouts[gathered.getResult()] = Layout::of(Layout::Varying);
      op.getInputMutable().assign(gathered.getResult());
    }
    setLayout(op.getResult(), Layout::split(last, *segments));
    return success();
  }
  // Replicated weights: the linear runs row by row on whatever piece of the
  // input this rank has.
  if (failed(requireParamLayout(op, op.getWeight(), Layout())) ||
      (op.getBias() && failed(requireParamLayout(op, op.getBias(), Layout()))))
    return failure();
  if (in.kind == Layout::Varying)
    return fail(op) << "internal: a replicated linear on a gathered input";
  if (in.varies())
    varyReplicatedOperands(op);
  setLayout(op.getResult(), in);
  return success();
}

LogicalResult Partitioner::visitCrossEntropy(CrossEntropyOp op) {
  reducePartialOperands(op);
  Layout in = layoutOf(op.getLogits());
  int64_t last = tensorOf(op.getLogits()).getRank() - 1;
  if (in.kind == Layout::Replicated || in.kind == Layout::Varying) {
    layouts[op.getResult()] = Layout();
    return success();
  }
  if (!in.isSplit(last))
    return fail(op) << "the logits are split along dimension " << in.dim
                    << ", not along the vocabulary";
  // Vocab-parallel cross-entropy: each rank reduces its piece of every row;
  // three all-reduces combine the row maximum, the softmax denominator and
  // the label's logit.
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  auto logits = tensorOf(op.getLogits());
  int64_t localClasses = logits.getShape().back();
  int64_t classes = op.getNumClassesAttr() ? op.getNumClassesAttr().getInt() : localClasses * tp;
  auto rowType = RankedTensorType::get(logits.getShape().drop_back(), logits.getElementType());
  auto mesh = FlatSymbolRefAttr::get(b.getContext(), kMeshName);
  auto axes = b.getStrArrayAttr({kAxis});
  Value index = axisIndex(loc);
  Value localMax = VocabParallelMaxOp::create(b, loc, rowType, op.getLogits(), index,
                                                b.getI64IntegerAttr(classes));
  Value max = AllReduceOp::create(b, loc, rowType, localMax, mesh, axes, ReductionKindAttr::get(b.getContext(), ReductionKind::max));
  auto stats = VocabParallelStatsOp::create(b, loc, rowType, rowType, op.getLogits(), index,
                                              op.getLabels(), max, b.getI64IntegerAttr(classes));
  Value sumExp = AllReduceOp::create(b, loc, rowType, stats.getSumExp(), mesh, axes,
                                       ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  Value labelLogit = AllReduceOp::create(b, loc, rowType, stats.getLabelLogit(), mesh, axes,
                                           ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  auto loss = CrossEntropyFromStatsOp::create(b, loc, op.getResult().getType(), sumExp,
                                                labelLogit, max, op.getLossMask());
  layouts[loss.getResult()] = Layout();
  op.getResult().replaceAllUsesWith(loss.getResult());
  op.erase();
  return success();
}

/// Ops that apply the same function to every element (or every row, for
/// norms over the last dimension) keep their input's layout.
LogicalResult Partitioner::visitElementwise(Operation *op) {
  reducePartialOperands(op);
  Value x = op->getOperand(0);
  Layout in = layoutOf(x);
  int64_t rank = tensorOf(x).getRank();
  b.setInsertionPoint(op);
  bool rowWise = isa<LayerNormOp, RmsNormOp>(op);
  if (rowWise && in.isSplit(rank - 1))
    return fail(op) << "a normalization over a split feature dimension is not supported";

  if (isa<AddOp, MulOp>(op)) {
    // Trailing broadcast: rhs covers lhs's last rhs-rank dimensions.
    Value rhs = op->getOperand(1);
    Layout r = layoutOf(rhs);
    int64_t offset = rank - tensorOf(rhs).getRank();
    if (in.kind == Layout::Split) {
      int64_t rhsDim = in.dim - offset;
      if (r == Layout::split(in.dim) || (r.kind == Layout::Split && r.dim == rhsDim)) {
        // both pieces of the same split
      } else if (r.kind == Layout::Split) {
        return fail(op) << "operands split along different dimensions";
      } else if (rhsDim >= 0 && tensorOf(rhs).getDimSize(rhsDim) != 1) {
        // The replicated rhs covers the split dimension: take this rank's piece.
        Value whole = r.kind == Layout::Replicated ? vary(rhs, op->getLoc()) : rhs;
        if (failed(checkSplits(op, tensorOf(rhs).getDimSize(rhsDim), "dimension of size")))
          return failure();
        Layout piece = Layout::split(rhsDim);
        auto slice = ShardSliceOp::create(b, op->getLoc(), localType(tensorOf(rhs), piece), whole,
                                            axisIndex(op->getLoc()), b.getI64IntegerAttr(rhsDim),
                                            b.getI64IntegerAttr(tp));
        layouts[slice.getResult()] = piece;
        op->setOperand(1, slice.getResult());
      } else {
        varyReplicatedOperands(op);
      }
    } else if (r.kind == Layout::Split) {
      return fail(op) << "a replicated value plus a split one is not supported";
    } else if (in.varies() || r.varies()) {
      varyReplicatedOperands(op);
      in = Layout::of(Layout::Varying);
    }
    setLayout(op->getResult(0), in);
    return success();
  }

  if (isa<PointwiseOpInterface>(op))
    for (Value v : op->getOperands().drop_front())
      if (!(layoutOf(v) == in) && (layoutOf(v).kind == Layout::Split || in.kind == Layout::Split))
        return fail(op) << "the operands of a pointwise op are laid out differently (one is "
                           "split, another is not, or split along another dimension)";
  if (in.varies())
    varyReplicatedOperands(op);
  if (auto d = dyn_cast<DropoutOp>(op); d && in.kind == Layout::Split) {
    d.getShardMutable().assign(axisIndex(op->getLoc()));
    d.setShardDimAttr(b.getI64IntegerAttr(in.dim));
    d.setShardPartsAttr(b.getI64IntegerAttr(tp));
  }
  if (isa<SoftmaxOp>(op) && in.isSplit(rank - 1))
    return fail(op) << "a softmax over a split dimension is not supported";
  if (isa<AlibiOp>(op) && in.kind == Layout::Split)
    return fail(op) << "ALiBi biases depend on the global head index; sharding heads with "
                       "ALiBi positions is not supported yet (use --tp=1)";
  for (Value r : op->getResults())
    setLayout(r, in);
  return success();
}

LogicalResult Partitioner::visitLayerStack(LayerStackOp op) {
  reducePartialOperands(op);
  Block &body = op.getBody().front();
  unsigned numCarried = op.getCarried().size();
  SmallVector<Layout> carried;
  for (auto [i, v] : llvm::enumerate(op.getCarried())) {
    carried.push_back(layoutOf(v));
    setLayout(body.getArgument(i), layoutOf(v));
  }
  for (auto [i, v] : llvm::enumerate(op.getStacked())) {
    BlockArgument perLayer = body.getArgument(numCarried + i);
    if (!isParam(v))
      return fail(op) << "stacked operand #" << i << " is not a parameter";
    paramRoot[perLayer] = {paramRoot.lookup(v).first, 1};
  }
  if (failed(visitBlock(body)))
    return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  b.setInsertionPoint(yield);
  reducePartialOperands(yield);
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    if (!(layoutOf(v) == carried[i]))
      return fail(op) << "a layer must return its carried value in the layout it received";
  for (auto [i, r] : llvm::enumerate(op.getResults()))
    setLayout(r, carried[i]);
  return success();
}

} // namespace tensor_parallel
} // namespace mt
