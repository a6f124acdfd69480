//===- ElementwiseIntoTransposes.cpp - elementwise ops through views -------===//
//
// A GPT layer adds the QKV projection's bias in one elementwise op, then
// reshapes and slices its result into the query, key and value and splits
// each into heads with a transpose. Upstream's fusion stops at the views
// (and a transpose is a named op), so on a GPU the bias add is a launch and
// a round trip of the projection through memory of its own. Here each
// transpose instead computes the bias add itself, reading the same views of
// the add's operands (the GEMM's output sliced and reshaped alike, the bias
// sliced along the dimensions it spans): the same operations on the same
// values, so the results do not change.
//
//===----------------------------------------------------------------------===//
#include "ElementwiseIntoTransposes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// The loop dimensions an operand spans, ascending: its dimension k is the
/// loop space's dimension span[k].
using Span = SmallVector<int64_t>;

/// Views read by a transpose, from the producer's result to its input.
struct ViewPath {
  SmallVector<Operation *> views;
  linalg::TransposeOp reader;
};

bool readsContraction(Operation *op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    auto producer = dyn_cast_or_null<linalg::LinalgOp>(v.getDefiningOp());
    return producer && linalg::isaContractionOpInterface(producer);
  });
}

/// The dimensions a broadcast map (a projected permutation keeping the loops'
/// order) reads, or nothing for any other map.
std::optional<Span> broadcastSpan(AffineMap map) {
  if (!map.isProjectedPermutation())
    return std::nullopt;
  Span span;
  for (AffineExpr e : map.getResults()) {
    int64_t d = cast<AffineDimExpr>(e).getPosition();
    if (!span.empty() && d <= span.back())
      return std::nullopt;
    span.push_back(d);
  }
  return span;
}

/// An elementwise generic that can be recomputed anywhere its result is read:
/// every loop parallel, no positions read, one result through the identity,
/// inputs broadcast.
bool isMovableElementwise(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumReductionLoops() != 0 || op.hasIndexSemantics() || readsContraction(op))
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() || op.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    return broadcastSpan(op.getMatchingIndexingMap(in)).has_value();
  });
}

/// A static, unit-stride, rank-keeping slice or a reshape.
bool isView(Operation *op) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return cast<ShapedType>(op->getResult(0).getType()).hasStaticShape();
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  return slice && slice.hasUnitStride() && slice.getSourceType().getRank() == slice.getType().getRank() &&
         !ShapedType::isDynamicShape(slice.getStaticOffsets()) &&
         slice.getType().hasStaticShape();
}

/// Every use of `value`, through views, is a transpose's input: the paths
/// to them.
bool collectPaths(Value value, SmallVector<Operation *> &prefix, SmallVector<ViewPath> &paths) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    auto reader = dyn_cast<linalg::TransposeOp>(user);
    if (reader && use.get() == reader.getInput()) {
      paths.push_back({prefix, reader});
      continue;
    }
    if (use.getOperandNumber() != 0 || !isView(user))
      return false;
    prefix.push_back(user);
    bool ok = collectPaths(user->getResult(0), prefix, paths);
    prefix.pop_back();
    if (!ok)
      return false;
  }
  return true;
}

/// Applies `view`, taken of a tensor spanning every loop, to `operand`, which
/// spans `span` of them; `span` becomes the view's. Without a builder it only
/// checks that the view applies.
FailureOr<Value> viewOperand(OpBuilder *b, Operation *view, Value operand, Span &span) {
  Location loc = view->getLoc();
  Span next;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(view)) {
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices(), mine;
    SmallVector<int64_t> shape;
    for (int64_t d : span) {
      ReassociationIndices group;
      for (int64_t out : groups[d]) {
        group.push_back(next.size());
        next.push_back(out);
        shape.push_back(expand.getResultType().getDimSize(out));
      }
      mine.push_back(group);
    }
    span = next;
    if (!b || shape.size() == mine.size())
      return operand;
    auto type = RankedTensorType::get(shape, getElementTypeOrSelf(operand.getType()));
    return tensor::ExpandShapeOp::create(*b, loc, type, operand, mine).getResult();
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(view)) {
    SmallVector<ReassociationIndices> mine;
    for (auto [out, group] : llvm::enumerate(collapse.getReassociationIndices())) {
      ReassociationIndices positions;
      for (int64_t in : group)
        if (auto it = llvm::find(span, in); it != span.end())
          positions.push_back(it - span.begin());
      if (positions.empty())
        continue;
      if (positions.size() != group.size())
        return failure();
      mine.push_back(positions);
      next.push_back(out);
    }
    bool changes = next.size() != span.size();
    span = next;
    if (!b || !changes)
      return operand;
    return tensor::CollapseShapeOp::create(*b, loc, operand, mine).getResult();
  }
  auto slice = cast<tensor::ExtractSliceOp>(view);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  bool whole = true;
  auto operandType = cast<RankedTensorType>(operand.getType());
  for (auto [k, d] : llvm::enumerate(span)) {
    int64_t offset = slice.getStaticOffsets()[d], size = slice.getType().getDimSize(d);
    whole &= offset == 0 && size == operandType.getDimSize(k);
    if (b) {
      offsets.push_back(b->getIndexAttr(offset));
      sizes.push_back(b->getIndexAttr(size));
      strides.push_back(b->getIndexAttr(1));
    }
  }
  if (!b || whole)
    return operand;
  return tensor::ExtractSliceOp::create(*b, loc, operand, offsets, sizes, strides).getResult();
}

/// The producer's operands seen through `path`, with the maps by which the
/// transpose's loops read them; fails (building nothing) where a view does
/// not apply to a broadcast operand.
LogicalResult viewOperands(OpBuilder *b, linalg::GenericOp producer, const ViewPath &path,
                           SmallVector<Value> &inputs, SmallVector<AffineMap> &maps) {
  linalg::TransposeOp reader = path.reader;
  AffineMap read = reader.getMatchingIndexingMap(reader.getDpsInputOperand(0));
  for (OpOperand *in : producer.getDpsInputOperands()) {
    Value operand = in->get();
    Span span = *broadcastSpan(producer.getMatchingIndexingMap(in));
    for (Operation *view : path.views) {
      FailureOr<Value> viewed = viewOperand(b, view, operand, span);
      if (failed(viewed))
        return failure();
      operand = *viewed;
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t d : span)
      exprs.push_back(read.getResult(d));
    inputs.push_back(operand);
    maps.push_back(AffineMap::get(read.getNumDims(), 0, exprs, read.getContext()));
  }
  return success();
}

void rewritePath(linalg::GenericOp producer, const ViewPath &path) {
  linalg::TransposeOp reader = path.reader;
  OpBuilder b(reader);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  (void)viewOperands(&b, producer, path, inputs, maps);
  maps.push_back(reader.getMatchingIndexingMap(reader.getDpsInitOperand(0)));
  auto fused = linalg::GenericOp::create(b, reader.getLoc(), reader->getResultTypes(), inputs,
                                         ValueRange{reader.getInit()}, maps,
                                         reader.getIteratorTypesArray());
  IRMapping mapping;
  producer.getRegion().cloneInto(&fused.getRegion(), mapping);
  reader->replaceAllUsesWith(fused);
  reader->erase();
}

} // namespace

void mt::fuseElementwiseIntoTransposes(Operation *root) {
  SmallVector<linalg::GenericOp> producers;
  root->walk([&](linalg::GenericOp op) {
    if (isMovableElementwise(op))
      producers.push_back(op);
  });
  for (linalg::GenericOp producer : producers) {
    SmallVector<Operation *> prefix;
    SmallVector<ViewPath> paths;
    Value result = producer->getResult(0);
    if (result.use_empty() || !collectPaths(result, prefix, paths))
      continue;
    if (llvm::any_of(paths, [&](const ViewPath &path) {
          SmallVector<Value> inputs;
          SmallVector<AffineMap> maps;
          return failed(viewOperands(nullptr, producer, path, inputs, maps));
        }))
      continue;
    SetVector<Operation *> views;
    for (const ViewPath &path : paths) {
      rewritePath(producer, path);
      views.insert(path.views.begin(), path.views.end());
    }
    // Views in the order they were found: each before the ones reading it.
    for (Operation *view : llvm::reverse(views))
      if (view->use_empty())
        view->erase();
    Operation *init = producer.getDpsInitOperand(0)->get().getDefiningOp();
    producer->erase();
    if (init && isa<tensor::EmptyOp>(init) && init->use_empty())
      init->erase();
  }
}
