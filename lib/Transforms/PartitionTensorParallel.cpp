//===- PartitionTensorParallel.cpp - Megatron tensor/sequence parallelism --===//
//
// Rewrites a logical model into the program one rank of a tensor-parallel
// group runs. The layouts are derived from the graph, not from names:
//
//  * a linear whose output reaches, only through head-wise and elementwise
//    ops, either another linear's contraction or the loss becomes
//    column-parallel (its weight split by output rows, per segment when the
//    output is split into pieces such as [q; k; v]); the linear that
//    contracts a split value becomes row-parallel and yields partial sums;
//  * embedding tables are split by vocabulary rows, and a loss over
//    vocabulary-split logits becomes the vocab-parallel cross-entropy;
//  * partial sums are reduced where something non-linear needs them: an
//    all-reduce, or with sequence parallelism a reduce-scatter along the
//    sequence, which then stays split through norms, dropout and residuals
//    until the next column-parallel linear all-gathers it.
//
// Gradients come from mt-derive-gradients on the rewritten program: a
// replicated value that starts feeding per-rank work passes an `mt.vary`,
// whose VJP is the all-reduce that sums the ranks' contributions.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mt {
#define GEN_PASS_DEF_PARTITIONTENSORPARALLELPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

#include "TensorParallelPartitioner.h"

namespace mt {
namespace tensor_parallel {

LogicalResult Partitioner::visit(Operation *op) {
  b.setInsertionPoint(op);
  if (auto l = dyn_cast<LinearOp>(op))
    return visitLinear(l);
  if (auto c = dyn_cast<CrossEntropyOp>(op))
    return visitCrossEntropy(c);
  if (auto s = dyn_cast<LayerStackOp>(op))
    return visitLayerStack(s);
  b.setInsertionPoint(op);
  if (auto e = dyn_cast<EmbeddingOp>(op)) {
    // Vocab-parallel: each rank looks up the ids its rows hold.
    if (!isParam(e.getTable()))
      return fail(op) << "the embedding table must be a parameter";
    if (failed(requireParamLayout(op, e.getTable(), Layout::split(0))))
      return failure();
    e.getShardMutable().assign(axisIndex(op->getLoc()));
    layouts[e.getResult()] = Layout::of(Layout::Partial);
    return success();
  }
  if (auto p = dyn_cast<PositionEmbeddingOp>(op)) {
    if (failed(requireParamLayout(op, p.getTable(), Layout())))
      return failure();
    layouts[p.getResult()] = Layout();
    return success();
  }
  if (isa<LayerNormOp, RmsNormOp>(op)) {
    for (Value v : op->getOperands().drop_front())
      if (isParam(v) && failed(requireParamLayout(op, v, Layout())))
        return failure();
    return visitElementwise(op);
  }
  if (isa<AddOp, MulOp, DropoutOp, GeluOp, SoftmaxOp, RotaryOp, AlibiOp, PointwiseOpInterface>(op)) {
    for (Value v : op->getOperands())
      if (isParam(v) && failed(requireParamLayout(op, v, Layout())))
        return failure();
    return visitElementwise(op);
  }
  if (auto s = dyn_cast<SplitOp>(op)) {
    Layout in = layoutOf(s.getInput());
    int64_t dim = s.getDimAttr().getInt();
    SmallVector<int64_t> sizes(s.getSizes());
    if (in.isSplit(dim)) {
      // Each piece of a segmented split is one segment: locally 1/tp of it.
      SmallVector<int64_t> wanted = in.segments;
      if (wanted != sizes)
        return fail(op) << "splits a dimension whose segments are laid out differently";
      for (int64_t &size : sizes)
        size /= tp;
      s.setSizes(sizes);
      for (Value r : s.getResults())
        setLayout(r, Layout::split(dim));
      return success();
    }
    for (Value r : s.getResults())
      setLayout(r, in);
    return success();
  }
  if (auto s = dyn_cast<SplitHeadsOp>(op)) {
    Layout in = layoutOf(s.getInput());
    if (in.isSplit(2)) {
      int64_t heads = s.getNumHeadsAttr().getInt();
      if (failed(checkSplits(op, heads, "the attention head count")))
        return failure();
      s.setNumHeadsAttr(b.getI64IntegerAttr(heads / tp));
      setLayout(s.getResult(), Layout::split(1));
      return success();
    }
    if (in.kind == Layout::Split)
      return fail(op) << "splitting heads of a tensor split along dimension " << in.dim;
    setLayout(s.getResult(), in);
    return success();
  }
  if (auto m = dyn_cast<MergeHeadsOp>(op)) {
    Layout in = layoutOf(m.getInput());
    if (in.kind == Layout::Split && in.dim != 1)
      return fail(op) << "merging heads of a tensor split along dimension " << in.dim;
    setLayout(m.getResult(), in.kind == Layout::Split ? Layout::split(2) : in);
    return success();
  }
  if (isa<AttentionScoresOp, AttentionContextOp>(op)) {
    Layout a = layoutOf(op->getOperand(0)), c = layoutOf(op->getOperand(1));
    if (a.kind == Layout::Split || c.kind == Layout::Split) {
      if (!a.isSplit(1) || !c.isSplit(1))
        return fail(op) << "attention needs queries, keys and values split by heads alike";
      setLayout(op->getResult(0), Layout::split(1));
      return success();
    }
    if (a.varies() || c.varies())
      return fail(op) << "attention on a value that differs between ranks but is not split by "
                         "heads";
    return success();
  }
  if (isa<func::ReturnOp, YieldOp>(op)) {
    reducePartialOperands(op);
    for (Value v : op->getOperands())
      if (layoutOf(v).kind == Layout::Split && isa<func::ReturnOp>(op))
        return fail(op) << "the model returns a split value";
    return success();
  }
  // Anything else runs replicated.
  for (Value v : op->getOperands())
    if (layoutOf(v).varies())
      return fail(op) << "no tensor-parallel rule for '" << op->getName()
                      << "' on a value that differs between ranks";
  return success();
}

LogicalResult Partitioner::visitBlock(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op)))
      return failure();
  return success();
}

LogicalResult Partitioner::run() {
  bool dynamic = false;
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t); r && !r.hasStaticShape())
        dynamic = true;
  });
  for (Type t : func.getArgumentTypes())
    if (auto r = dyn_cast<RankedTensorType>(t); r && !r.hasStaticShape())
      dynamic = true;
  if (dynamic)
    return func.emitError("mt-partition-tensor-parallel: run mt-specialize-shapes first "
                          "(dynamic sizes)");
  Block &entry = func.getBody().front();
  for (const ParamInfo &p : collectParams(func)) {
    BlockArgument arg = entry.getArgument(p.argNumber);
    paramRoot[arg] = {arg, 0};
  }
  if (failed(visitBlock(entry)))
    return failure();
  if (sequenceError)
    return emitError(*sequenceError)
           << "mt-partition-tensor-parallel (tp=" << tp
           << "): sequence parallelism splits the sequence over the tensor-parallel ranks, "
              "and this activation's sequence length does not divide by "
           << tp << "; choose a --seq-length divisible by " << tp << " or turn it off (--sp=false)";
  // Record each parameter's layout for the plan: the sharded dimension of
  // the logical tensor and its segments.
  MLIRContext *ctx = func.getContext();
  auto mesh = FlatSymbolRefAttr::get(ctx, kMeshName);
  for (auto &[arg, layout] : paramLayouts) {
    if (layout.kind != Layout::Split)
      continue;
    SmallVector<ArrayAttr> dims;
    for (int64_t d = 0; d < tensorOf(arg).getRank(); ++d)
      dims.push_back(d == layout.dim ? b.getStrArrayAttr({kAxis}) : b.getStrArrayAttr({}));
    func.setArgAttr(arg.getArgNumber(), kShardingAttrName, ShardingAttr::get(ctx, mesh, dims, {}));
    if (layout.segments.size() > 1)
      func.setArgAttr(arg.getArgNumber(), kSegmentsAttrName,
                      b.getI64IntegerAttr(static_cast<int64_t>(layout.segments.size())));
  }
  func.setType(FunctionType::get(ctx, entry.getArgumentTypes(),
                                 entry.getTerminator()->getOperandTypes()));
  return success();
}

} // namespace tensor_parallel
} // namespace mt

namespace {

using namespace mt::tensor_parallel;

struct PartitionTensorParallelPass
    : mt::impl::PartitionTensorParallelPassBase<PartitionTensorParallelPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (tp < 1) {
      module.emitError("mt-partition-tensor-parallel: tp must be >= 1, got ") << tp;
      return signalPassFailure();
    }
    if (tp == 1)
      return;
    if (SymbolTable::lookupSymbolIn(module, kMeshName)) {
      module.emitError("mt-partition-tensor-parallel: the module already defines @")
          << kMeshName << "; the pass declares the tensor-parallel mesh itself";
      return signalPassFailure();
    }
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    MeshOp::create(b, module.getLoc(), kMeshName, b.getStrArrayAttr({kAxis}),
                     b.getDenseI64ArrayAttr({tp}));
    for (func::FuncOp func : modelFunctions(module))
      if (failed(Partitioner(func, tp, sequenceParallel).run()))
        return signalPassFailure();
  }
};

} // namespace
