//===- FuseGradientAccumulation.cpp - gradients added where they are made --===//
#include "mt/Transforms/Passes.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mt {
#define GEN_PASS_DEF_FUSEGRADIENTACCUMULATIONPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// One addend of a parameter's gradient: the whole gradient, or (layer set)
/// one layer's slice of a stacked one.
struct Contribution {
  Value value;
  std::optional<int64_t> layer;
};

/// Splits gradient `g` into its addends, through the stack of a stacked
/// weight's layer gradients and the sums of a tied weight's uses. The ops
/// looked through are collected in `consumed`: nothing else reads them.
void splitIntoContributions(Value g, std::optional<int64_t> layer,
                            SmallVectorImpl<Contribution> &out,
                            llvm::SetVector<Operation *> &consumed) {
  Operation *def = g.getDefiningOp();
  if (def && g.hasOneUse()) {
    if (auto add = dyn_cast<AddOp>(def);
        add && add.getLhs().getType() == g.getType() && add.getRhs().getType() == g.getType()) {
      consumed.insert(def);
      splitIntoContributions(add.getLhs(), layer, out, consumed);
      splitIntoContributions(add.getRhs(), layer, out, consumed);
      return;
    }
    if (auto stack = dyn_cast<StackLayersOp>(def); stack && !layer) {
      consumed.insert(def);
      for (auto [i, v] : llvm::enumerate(stack.getInputs()))
        splitIntoContributions(v, static_cast<int64_t>(i), out, consumed);
      return;
    }
    if (isa<ZerosOp>(def)) { // adds nothing
      consumed.insert(def);
      return;
    }
  }
  out.push_back({g, layer});
}

/// `target + v`, computed into `target` where the producer of `v` can do it
/// (a GEMM, the embedding's scatter-add), by mt.accumulate otherwise.
Value accumulate(OpBuilder &b, Value v, Value target, SmallVectorImpl<Operation *> &replaced) {
  Operation *def = v.getDefiningOp();
  if (def && v.hasOneUse() && v.getType() == target.getType()) {
    // A 16-bit weight gradient widened for its fp32 accumulator: the GEMM
    // writes fp32 into the accumulator itself, never rounding to 16 bits.
    if (auto widen = dyn_cast<ConvertOp>(def)) {
      auto m = widen.getInput().getDefiningOp<MatmulOp>();
      auto t = cast<RankedTensorType>(target.getType());
      if (m && !m.getPlus() && m->hasOneUse() && t.getElementType().isF32() &&
          cast<RankedTensorType>(m.getLhs().getType()).getElementType().getIntOrFloatBitWidth() ==
              16) {
        auto fused = cast<MatmulOp>(b.clone(*m));
        fused.getResult().setType(t);
        fused.getPlusMutable().assign(target);
        replaced.push_back(def);
        replaced.push_back(m);
        return fused.getResult();
      }
    }
    if (auto m = dyn_cast<MatmulOp>(def); m && !m.getPlus()) {
      auto fused = cast<MatmulOp>(b.clone(*def));
      fused.getPlusMutable().assign(target);
      replaced.push_back(def);
      return fused.getResult();
    }
    if (auto e = dyn_cast<EmbeddingGradOp>(def); e && !e.getPlus()) {
      auto fused = cast<EmbeddingGradOp>(b.clone(*def));
      fused.getPlusMutable().assign(target);
      replaced.push_back(def);
      return fused.getResult();
    }
  }
  return AccumulateOp::create(b, v.getLoc(), target.getType(), v, target);
}

/// Marks an op the pass built as backward work of `layer`.
void markBackward(Operation *op, std::optional<int64_t> layer) {
  OpBuilder b(op->getContext());
  op->setAttr(kBackwardAttrName, b.getUnitAttr());
  if (layer)
    op->setAttr(kLayerAttrName, b.getI64IntegerAttr(*layer));
}

/// The model layer of slot 0 of stacked parameter `param` in `fn`.
int64_t firstLayerOf(func::FuncOp fn, StringAttr param) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto p = fn.getArgAttrOfType<ParamAttr>(i, kParamAttrName); p && p.getName() == param)
      if (auto first = fn.getArgAttrOfType<IntegerAttr>(i, kFirstLayerAttrName))
        return first.getInt();
  return 0;
}

void fuse(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t n = 0;
  for (Operation &op : entry)
    position[&op] = n++;
  auto positionOf = [&](Value v) -> int64_t {
    Operation *def = v.getDefiningOp();
    return def ? position.lookup(entry.findAncestorOpInBlock(*def)) : -1;
  };
  llvm::SetVector<Operation *> consumed;
  SmallVector<Operation *> replaced;
  for (unsigned i = 0; i < fn.getNumResults(); ++i) {
    auto param = fn.getResultAttrOfType<StringAttr>(i, kGradOfAttrName);
    if (!param)
      continue;
    Value g = ret.getOperand(i);
    Type type = g.getType();
    unsigned argNumber = fn.getNumArguments();
    OpBuilder ab(fn.getContext());
    if (failed(fn.insertArgument(
            argNumber, type, ab.getDictionaryAttr(ab.getNamedAttr(kAccumulatorOfAttrName, param)),
            fn.getLoc())))
      continue;
    fn.setResultAttr(i, kInPlaceOfAttrName, ab.getI64IntegerAttr(argNumber));
    Value acc = fn.getArgument(argNumber);

    SmallVector<Contribution> parts;
    splitIntoContributions(g, std::nullopt, parts, consumed);
    // In program order, so the accumulator is threaded through the step
    // and each addend is added right where it is made.
    llvm::stable_sort(parts, [&](const Contribution &a, const Contribution &b) {
      return positionOf(a.value) < positionOf(b.value);
    });
    Operation *last = nullptr; // the latest op of this accumulator's chain
    for (const Contribution &c : parts) {
      OpBuilder b(fn.getContext());
      Operation *def = c.value.getDefiningOp();
      Operation *after = def ? entry.findAncestorOpInBlock(*def) : nullptr;
      if (last && (!after || after->isBeforeInBlock(last)))
        after = last;
      if (after)
        b.setInsertionPointAfter(after);
      else
        b.setInsertionPointToStart(&entry);
      Location loc = c.value.getLoc();
      Value target = acc;
      // Marked with the model's layer (the addend's), not its slot in the
      // stack: mt-share-stage-programs and mt-outline-layers group by it.
      std::optional<int64_t> layer = c.layer;
      if (auto l = def ? def->getAttrOfType<IntegerAttr>(kLayerAttrName) : IntegerAttr())
        layer = l.getInt();
      else if (c.layer)
        layer = *c.layer + firstLayerOf(fn, param);
      if (c.layer) {
        auto stacked = cast<RankedTensorType>(type);
        auto sliceType =
            RankedTensorType::get(stacked.getShape().drop_front(), stacked.getElementType());
        auto slice = SliceLayerOp::create(b, loc, sliceType, acc, b.getI64IntegerAttr(*c.layer));
        markBackward(slice, layer);
        target = slice;
      }
      Value sum = accumulate(b, c.value, target, replaced);
      markBackward(sum.getDefiningOp(), layer);
      last = sum.getDefiningOp();
      if (c.layer) {
        auto insert = InsertLayerOp::create(b, loc, type, sum, acc, b.getI64IntegerAttr(*c.layer));
        markBackward(insert, layer);
        sum = insert;
        last = insert;
      }
      acc = sum;
    }
    ret.setOperand(i, acc);
  }
  // The stacks and sums looked through, then the unfused producers, are
  // dead now; each op was collected before the ops feeding it.
  for (Operation *op : consumed)
    if (op->use_empty())
      op->erase();
  for (Operation *op : replaced)
    if (op->use_empty())
      op->erase();
}

struct FuseGradientAccumulationPass
    : mt::impl::FuseGradientAccumulationPassBase<FuseGradientAccumulationPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      bool hasGradients = false;
      bool accumulates = false;
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        hasGradients |= static_cast<bool>(fn.getResultAttr(i, kGradOfAttrName));
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        accumulates |= static_cast<bool>(fn.getArgAttr(i, kAccumulatorOfAttrName));
      if (hasGradients && !accumulates) // once: the pass is idempotent
        fuse(fn);
    }
  }
};

} // namespace
