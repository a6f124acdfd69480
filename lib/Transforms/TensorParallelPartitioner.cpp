//===- TensorParallelPartitioner.cpp - the partitioner's building blocks --===//
//
// What the ops' tensor-parallel rules build with (TensorParallelBuilder):
// this rank's index, mt.vary, reductions of partial sums, the parameters'
// layouts, and where a linear's output split can go.
//
//===----------------------------------------------------------------------===//
#include "TensorParallelPartitioner.h"

namespace mt {
namespace tensor_parallel {

Value Partitioner::axisIndex(Location loc) {
  return AxisIndexOp::create(b, loc, RankedTensorType::get({}, b.getI64Type()),
                             FlatSymbolRefAttr::get(b.getContext(), kTensorParallelMesh),
                             b.getStringAttr(kTensorParallelAxis));
}

Value Partitioner::vary(Value v, Location loc) {
  if (VaryOp made = varied.lookup(v)) {
    Block *here = b.getInsertionBlock();
    if (made->getBlock() == here &&
        (b.getInsertionPoint() == here->end() || made->isBeforeInBlock(&*b.getInsertionPoint())))
      return made.getResult();
  }
  auto op = VaryOp::create(b, loc, v.getType(), v,
                           FlatSymbolRefAttr::get(b.getContext(), kTensorParallelMesh),
                           b.getStrArrayAttr({kTensorParallelAxis}));
  layouts[op.getResult()] = Layout::of(Layout::Varying);
  varied[v] = op;
  return op.getResult();
}

/// Reduces partial sums right where they are needed (before `b`'s insertion
/// point): all-reduce, or under sequence parallelism reduce-scatter along the
/// sequence of a [batch, seq, hidden] activation.
Value Partitioner::reduce(Value partial, Location loc) {
  auto type = tensorOf(partial);
  auto mesh = FlatSymbolRefAttr::get(b.getContext(), kTensorParallelMesh);
  auto axes = b.getStrArrayAttr({kTensorParallelAxis});
  if (sp && type.getRank() == 3 && type.getDimSize(1) % tp != 0 && !sequenceError)
    sequenceError = loc;
  if (sp && type.getRank() == 3 && !sequenceError) {
    Layout l = Layout::split(1);
    auto rs = ReduceScatterOp::create(b, loc, localType(type, l), partial, mesh, axes,
                                      b.getI64IntegerAttr(1),
                                      ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
    layouts[rs.getResult()] = l;
    return rs.getResult();
  }
  auto ar = AllReduceOp::create(b, loc, type, partial, mesh, axes,
                                ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  layouts[ar.getResult()] = Layout();
  return ar.getResult();
}

LogicalResult Partitioner::requireParamLayout(Operation *user, Value param, const Layout &l) {
  // A weight computed in the program (a layer's mt.slice_layer of stacked
  // parameters after mt-unroll-layers, say) has no parameter to shard.
  if (!paramRoot.count(param))
    return fail(user) << "this op's weight is not a model parameter (an argument marked "
                         "mt.param, or an mt.layer_stack's per-layer one): partition the model "
                         "before its layers are unrolled";
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
    for (int64_t s :
         l.segments.empty() ? SmallVector<int64_t>{tensorOf(param).getDimSize(l.dim)} : l.segments)
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
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    int64_t through = kSplitBlocked;
    if (auto rule = dyn_cast<TensorParallelOpInterface>(user))
      through = rule.splitThrough(use.getOperandNumber(), dim);
    else if (auto pointwise = dyn_cast<PointwiseOpInterface>(user);
             pointwise && pointwise.carriesSplit())
      // An operand of lower rank covers the result's trailing dimensions.
      through = dim + tensorOf(user->getResult(0)).getRank() - tensorOf(use.get()).getRank();
    if (through == kSplitBlocked)
      return false;
    if (through == kSplitConsumed)
      continue;
    for (Value r : user->getResults())
      if (!keepsSplit(r, through, depth + 1))
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

} // namespace tensor_parallel
} // namespace mt
