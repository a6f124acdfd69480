//===- FuseIntoRowKernels.cpp - elementwise ops into the row kernels --------===//
//
// A GPT layer drops its attention probabilities right after the softmax that
// writes them, and drops their gradient right before the softmax gradient
// that reads it. On a GPU each dropout is a launch and a round trip of a
// B x H x S x S tensor through memory (on an H100 at micro-batch 4, about
// 2.1 ms of a 20.6 ms step, bench/gpu/results/2026-11-28-h100-run3.log).
// Upstream's elementwise fusion does not see into a row kernel (a loop over
// rows, not a linalg op), so this pass does it by hand:
//  - a consumer, an elementwise generic reading the row kernel's result
//    element for element, joins the row kernel's last pass along the row:
//    where that pass stores element (r, j), it also computes the consumer's
//    body on the stored value and stores that into a new result;
//  - a producer, an elementwise generic whose result only the row kernel
//    reads, is computed where the row kernel reads it.
// The fused body sees exactly the values the unfused op read (the stored,
// rounded element; the same positions for a dropout's key), so results are
// bit-identical.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mt {
#define GEN_PASS_DEF_FUSEINTOROWKERNELSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// A loop from 0 to a constant in steps of 1: its trip count.
std::optional<int64_t> unitLoopCount(scf::ForOp loop) {
  auto lb = constantIndex(loop.getLowerBound()), step = constantIndex(loop.getStep());
  if (!lb || *lb != 0 || !step || *step != 1)
    return std::nullopt;
  return constantIndex(loop.getUpperBound());
}

/// An elementwise generic: every loop parallel, one result written through
/// an identity map and not read by the body, inputs read through projected
/// permutations (each element of an input is the one at some of the loops).
bool isElementwise(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumReductionLoops() != 0)
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() || op.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    return op.getMatchingIndexingMap(in).isProjectedPermutation();
  });
}

/// Whether a reshape between a rank-`rank` tensor and [rows, width] (a
/// collapse to it, an expand from it) merges exactly the leading dimensions
/// into the rows and keeps the last as the width.
bool rowMajorReshape(ArrayRef<ReassociationIndices> groups, int64_t rank) {
  if (groups.size() != 2 || groups[1].size() != 1)
    return false;
  return static_cast<int64_t>(groups[0].size()) == rank - 1;
}

/// Splits row index `r` of [prod(leading), width] into the leading indices.
SmallVector<Value> rowIndices(OpBuilder &b, Location l, Value r, ArrayRef<int64_t> leading) {
  SmallVector<Value> idx(leading.size());
  for (size_t d = leading.size() - 1; d > 0; --d) {
    Value extent = arith::ConstantIndexOp::create(b, l, leading[d]);
    idx[d] = arith::RemUIOp::create(b, l, r, extent);
    r = arith::DivUIOp::create(b, l, r, extent);
  }
  idx[0] = r;
  return idx;
}

/// The body of the scf.for whose induction variable `r` is, or null.
Block *loopBodyOf(Value r) {
  auto arg = dyn_cast<BlockArgument>(r);
  if (!arg || !isa<scf::ForOp>(arg.getOwner()->getParentOp()) || arg.getArgNumber() != 0)
    return nullptr;
  return arg.getOwner();
}

/// Computes `op`'s body at element `idx` (one index per loop) at `b`'s
/// point: operand `given` (if any) is `givenValue`, each other input the
/// element it reads there. Returns the yielded value.
Value bodyAt(OpBuilder &b, Location l, linalg::GenericOp op, ArrayRef<Value> idx,
             OpOperand *given = nullptr, Value givenValue = Value()) {
  IRMapping m;
  Block &body = op.getRegion().front();
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value arg = body.getArgument(in->getOperandNumber());
    if (in == given) {
      m.map(arg, givenValue);
      continue;
    }
    SmallVector<Value> at;
    for (AffineExpr e : op.getMatchingIndexingMap(in).getResults())
      at.push_back(idx[cast<AffineDimExpr>(e).getPosition()]);
    m.map(arg, tensor::ExtractOp::create(b, l, in->get(), at));
  }
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      m.map(index.getResult(), idx[index.getDim()]);
      continue;
    }
    b.clone(inner, m);
  }
  return m.lookup(cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
}

/// Moves the pure ops `v` depends on that sit after `point` in its block to
/// just before it; false (nothing moved) where one cannot move.
bool hoistAbove(Value v, Operation *point, DominanceInfo &dom,
                SmallVectorImpl<Operation *> &toMove) {
  if (dom.properlyDominates(v, point))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() || !isPure(def) || def->getNumRegions())
    return false;
  for (Value operand : def->getOperands())
    if (!hoistAbove(operand, point, dom, toMove))
      return false;
  if (!llvm::is_contained(toMove, def))
    toMove.push_back(def);
  return true;
}

/// The row kernel's store of its `result`th result's final value: a
/// `tensor.insert %v into %acc[%r, %j]` in a pass along the row whose
/// result the row loop yields as it is.
tensor::InsertOp finalStore(scf::ForOp rows, unsigned result, scf::ForOp &pass) {
  auto yield = cast<scf::YieldOp>(rows.getBody()->getTerminator());
  auto along = yield.getOperand(result).getDefiningOp<scf::ForOp>();
  if (!along || !along->hasAttr(mt::kAlongRowAttrName) || along->getBlock() != rows.getBody())
    return {};
  unsigned k = cast<OpResult>(yield.getOperand(result)).getResultNumber();
  auto inner = cast<scf::YieldOp>(along.getBody()->getTerminator());
  auto store = inner.getOperand(k).getDefiningOp<tensor::InsertOp>();
  if (!store || store.getDest() != along.getRegionIterArgs()[k] ||
      store.getIndices().size() != 2 || store.getIndices()[0] != rows.getInductionVar() ||
      store.getIndices()[1] != along.getInductionVar() || !store->hasOneUse())
    return {};
  pass = along;
  return store;
}

/// Joins elementwise `consumer` to the row kernel whose result its input
/// `in` reads; false where the shapes or the kernel's form do not allow it.
bool fuseConsumer(IRRewriter &rewriter, linalg::GenericOp consumer, OpOperand *in,
                  DominanceInfo &dom) {
  if (!consumer.getMatchingIndexingMap(in).isIdentity())
    return false;
  auto shape = cast<RankedTensorType>(consumer->getResult(0).getType()).getShape();
  Value source = in->get();
  if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>()) {
    if (!rowMajorReshape(expand.getReassociationIndices(), shape.size()))
      return false;
    source = expand.getSrc();
  } else if (shape.size() != 2) {
    return false;
  }
  auto rows = source.getDefiningOp<scf::ForOp>();
  if (!rows || !rows->hasAttr(mt::kIndependentIterationsAttrName) ||
      rows->getBlock() != consumer->getBlock())
    return false;
  unsigned result = cast<OpResult>(source).getResultNumber();
  scf::ForOp pass;
  tensor::InsertOp store = finalStore(rows, result, pass);
  if (!store || store.getScalar().getType() !=
                    consumer.getRegion().front().getArgument(in->getOperandNumber()).getType())
    return false;
  // What the consumer reads besides the row kernel's result must exist
  // before the row kernel.
  SmallVector<Operation *> toMove;
  for (OpOperand *other : consumer.getDpsInputOperands())
    if (other != in && !hoistAbove(other->get(), rows, dom, toMove))
      return false;
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(consumer.getRegion(), captured);
  for (Value v : captured)
    if (!hoistAbove(v, rows, dom, toMove))
      return false;
  llvm::sort(toMove, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : toMove)
    op->moveBefore(rows);

  Location l = consumer.getLoc();
  auto resultType = cast<RankedTensorType>(consumer->getResult(0).getType());
  int64_t width = shape.back(), count = resultType.getNumElements() / width;
  rewriter.setInsertionPoint(rows);
  Value init = tensor::EmptyOp::create(rewriter, l, ArrayRef<int64_t>{count, width},
                                       resultType.getElementType());
  // The row loop and its last pass each carry the new result; the pass
  // stores the consumer's value where it stores its own.
  auto yieldSame = [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
    return SmallVector<Value>{args.back()};
  };
  auto newRows = cast<scf::ForOp>(
      *rows.replaceWithAdditionalYields(rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
                                        yieldSame));
  Value rowsCarried = newRows.getRegionIterArgs().back();
  scf::ForOp newPass;
  tensor::InsertOp newStore = finalStore(newRows, result, newPass);
  auto extendPass = [&](OpBuilder &b, Location nl, ArrayRef<BlockArgument> args) {
    b.setInsertionPoint(newStore->getNextNode());
    SmallVector<Value> idx = rowIndices(b, nl, newRows.getInductionVar(), shape.drop_back());
    idx.push_back(newStore.getIndices()[1]);
    Value v = bodyAt(b, nl, consumer, idx, in, newStore.getScalar());
    Value stored = tensor::InsertOp::create(b, nl, v, args.back(), newStore.getIndices());
    return SmallVector<Value>{stored};
  };
  auto extended = cast<scf::ForOp>(*newPass.replaceWithAdditionalYields(
      rewriter, rowsCarried, /*replaceInitOperandUsesInLoop=*/false, extendPass));
  auto rowYield = cast<scf::YieldOp>(newRows.getBody()->getTerminator());
  rowYield->setOperand(rowYield.getNumOperands() - 1, extended.getResults().back());

  rewriter.setInsertionPoint(consumer);
  Value fused = newRows.getResults().back();
  if (shape.size() != 2) {
    ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < static_cast<int64_t>(shape.size()); ++d)
      leading.push_back(d);
    fused = tensor::ExpandShapeOp::create(
        rewriter, l, resultType, fused,
        SmallVector<ReassociationIndices>{leading, {static_cast<int64_t>(shape.size()) - 1}});
  }
  rewriter.replaceOp(consumer, fused);
  return true;
}

/// Computes elementwise `producer` where the row kernels read it, when they
/// are its only readers: each `tensor.extract` of its result (or of a
/// [rows, width] collapse of it) inside a row loop.
bool fuseProducer(IRRewriter &rewriter, linalg::GenericOp producer) {
  // The rounding of a GEMM's fp32 product into 16 bits stays apart: it is
  // the GEMM's own output once that is a library call (the scores of
  // attention, which the softmax reads).
  if (llvm::any_of(producer->getOperands(), [](Value v) {
        auto op = v.getDefiningOp<linalg::LinalgOp>();
        return op && linalg::isaContractionOpInterface(op);
      }))
    return false;
  Value result = producer->getResult(0);
  auto shape = cast<RankedTensorType>(result.getType()).getShape();
  if (shape.size() < 2 || !result.hasOneUse())
    return false;
  Operation *reader = *result.getUsers().begin();
  Value read = result;
  SmallVector<int64_t> leading(shape.drop_back());
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reader)) {
    if (!rowMajorReshape(collapse.getReassociationIndices(), shape.size()))
      return false;
    read = collapse.getResult();
  } else if (shape.size() != 2) {
    return false;
  }
  SmallVector<tensor::ExtractOp> extracts;
  for (Operation *user : read.getUsers()) {
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    auto rows = extract ? extract->getParentOfType<scf::ForOp>() : scf::ForOp();
    while (rows && !rows->hasAttr(mt::kIndependentIterationsAttrName))
      rows = rows->getParentOfType<scf::ForOp>();
    if (!rows)
      return false;
    extracts.push_back(extract);
  }
  if (extracts.empty())
    return false;
  // A row index that is a loop's induction variable is split once, at the
  // loop's start: the passes along a row then read the producer's inputs at
  // the same values, so a later pass can reuse what an earlier one loaded
  // (mt-map-to-gpu row-registers). Any other is split where it is read.
  DenseMap<Value, SmallVector<Value>> splits;
  for (tensor::ExtractOp extract : extracts) {
    Value r = extract.getIndices()[0];
    SmallVector<Value> idx;
    if (Block *loopBody = loopBodyOf(r)) {
      auto split = splits.find(r);
      if (split == splits.end()) {
        rewriter.setInsertionPointToStart(loopBody);
        split = splits.try_emplace(r, rowIndices(rewriter, extract.getLoc(), r, leading)).first;
      }
      idx = split->second;
    } else {
      rewriter.setInsertionPoint(extract);
      idx = rowIndices(rewriter, extract.getLoc(), r, leading);
    }
    idx.push_back(extract.getIndices()[1]);
    rewriter.setInsertionPoint(extract);
    rewriter.replaceOp(extract, bodyAt(rewriter, extract.getLoc(), producer, idx));
  }
  if (read != result)
    rewriter.eraseOp(reader);
  rewriter.eraseOp(producer);
  return true;
}

struct FuseIntoRowKernelsPass : mt::impl::FuseIntoRowKernelsPassBase<FuseIntoRowKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isElementwise(op))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics) {
      if (fuseProducer(rewriter, op))
        continue;
      DominanceInfo dom(op->getParentOp());
      for (OpOperand *in : op.getDpsInputOperands())
        if (fuseConsumer(rewriter, op, in, dom))
          break;
    }
  }
};

} // namespace
