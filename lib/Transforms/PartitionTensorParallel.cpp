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
// Each op's rule is its TensorParallelOpInterface implementation
// (lib/Dialect/MT/IR/MT*TensorParallel.cpp); pointwise ops keep their
// operands' layout. Gradients come from mt-derive-gradients on the rewritten program: a
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
  if (auto rule = dyn_cast<TensorParallelOpInterface>(op))
    return rule.partitionTensorParallel(*this);
  if (isa<PointwiseOpInterface>(op))
    return visitPointwise(op);
  if (isa<func::ReturnOp, YieldOp>(op))
    return visitTerminator(op);
  // Anything else runs replicated.
  for (Value v : op->getOperands())
    if (layoutOf(v).varies())
      return fail(op) << "no tensor-parallel rule for '" << op->getName()
                      << "' on a value that differs between ranks";
  return success();
}

/// Any pointwise op keeps the split of its split operands, which must
/// agree (an operand of lower rank covers the result's trailing dimensions);
/// a whole operand that spans the split dimension takes this rank's piece.
LogicalResult Partitioner::visitPointwise(Operation *op) {
  if (failed(requireReplicatedParams(op)))
    return failure();
  reducePartialOperands(op);
  int64_t rank = tensorOf(op->getResult(0)).getRank();
  auto offsetOf = [&](Value v) { return rank - tensorOf(v).getRank(); };
  std::optional<Layout> split; // in the result's dimensions
  for (Value v : op->getOperands()) {
    Layout l = layoutOf(v);
    if (l.kind != Layout::Split)
      continue;
    l.dim += offsetOf(v);
    if (split && split->dim != l.dim)
      return fail(op) << "the operands of a pointwise op are split along different dimensions";
    if (!split)
      split = l;
  }
  if (!split) {
    bool varies = llvm::any_of(op->getOperands(), [&](Value v) { return layoutOf(v).varies(); });
    if (varies)
      varyReplicatedOperands(op);
    setLayout(op->getResult(0), Layout::of(varies ? Layout::Varying : Layout::Replicated));
    return success();
  }
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    int64_t dim = split->dim - offsetOf(v);
    if (layoutOf(v).kind == Layout::Split || dim < 0 || tensorOf(v).getDimSize(dim) == 1)
      continue; // split alike, or broadcast along the split
    if (split->segments.size() > 1)
      return fail(op) << "a whole operand cannot take this rank's piece of a split made of "
                      << split->segments.size() << " segments (a fused projection's output)";
    if (failed(checkSplits(op, tensorOf(v).getDimSize(dim), "dimension of size")))
      return failure();
    Value whole = layoutOf(v).kind == Layout::Replicated ? vary(v, op->getLoc()) : v;
    Layout piece = Layout::split(dim);
    auto slice = ShardSliceOp::create(b, op->getLoc(), localType(tensorOf(v), piece), whole,
                                      axisIndex(op->getLoc()), b.getI64IntegerAttr(dim),
                                      b.getI64IntegerAttr(tp));
    recordLayout(slice.getResult(), piece);
    operand.set(slice.getResult());
  }
  varyReplicatedOperands(op);
  setLayout(op->getResult(0), *split);
  return success();
}

/// What a function returns or a layer yields is whole: partial sums are
/// reduced, and a model cannot return a split value.
LogicalResult Partitioner::visitTerminator(Operation *op) {
  reducePartialOperands(op);
  for (Value v : op->getOperands())
    if (layoutOf(v).kind == Layout::Split && isa<func::ReturnOp>(op))
      return fail(op) << "the model returns a split value";
  return success();
}

LogicalResult Partitioner::partitionBlock(Block &block) {
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
  // The pass splits features, heads and the vocabulary, whose sizes come
  // from the parameters; batch and sequence may stay open (mt-build-inference
  // runs on a partitioned model before its shapes are fixed), except where
  // sequence parallelism splits the sequence.
  if (dynamic && sp)
    return func.emitError("mt-partition-tensor-parallel: sequence parallelism splits the "
                          "sequence; run mt-specialize-shapes first (dynamic sizes)");
  Block &entry = func.getBody().front();
  for (const ParamInfo &p : collectParams(func)) {
    BlockArgument arg = entry.getArgument(p.argNumber);
    paramRoot[arg] = {arg, 0};
  }
  if (failed(partitionBlock(entry)))
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
  auto mesh = FlatSymbolRefAttr::get(ctx, kTensorParallelMesh);
  for (auto &[arg, layout] : paramLayouts) {
    if (layout.kind != Layout::Split)
      continue;
    SmallVector<ArrayAttr> dims;
    for (int64_t d = 0; d < tensorOf(arg).getRank(); ++d)
      dims.push_back(d == layout.dim ? b.getStrArrayAttr({kTensorParallelAxis})
                                     : b.getStrArrayAttr({}));
    func.setArgAttr(arg.getArgNumber(), kShardingAttrName, ShardingAttr::get(ctx, mesh, dims, {}));
    if (layout.segments.size() > 1)
      func.setArgAttr(arg.getArgNumber(), kSegmentsAttrName,
                      b.getI64IntegerAttr(static_cast<int64_t>(layout.segments.size())));
  }
  func.setType(
      FunctionType::get(ctx, entry.getArgumentTypes(), entry.getTerminator()->getOperandTypes()));
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
      module.emitError("mt-partition-tensor-parallel: tp must be >= 1, got ")
          << static_cast<int64_t>(tp);
      return signalPassFailure();
    }
    if (tp == 1)
      return;
    if (SymbolTable::lookupSymbolIn(module, kTensorParallelMesh)) {
      module.emitError("mt-partition-tensor-parallel: the module already defines @")
          << kTensorParallelMesh << "; the pass declares the tensor-parallel mesh itself";
      return signalPassFailure();
    }
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    MeshOp::create(b, module.getLoc(), kTensorParallelMesh,
                   b.getStrArrayAttr({kTensorParallelAxis}), b.getDenseI64ArrayAttr({tp}));
    for (func::FuncOp func : modelFunctions(module))
      if (failed(Partitioner(func, tp, sequenceParallel).run()))
        return signalPassFailure();
  }
};

} // namespace
