//===- DeriveGradients.cpp - reverse-mode autodiff of a model --------------===//
//
// Builds @f_grad: the forward ops of @f, then, walking them backwards, each
// op's vector-Jacobian product (VJP). Adjoints of a value used several times
// are summed. The rules are listed in docs/autodiff.md.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mt {
#define GEN_PASS_DEF_DERIVEGRADIENTSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

RankedTensorType tensorTypeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

class Differentiator {
public:
  Differentiator(OpBuilder &builder) : b(builder) {}

  /// The adjoint of `v` so far, or null.
  Value adjoint(Value v) const { return adjoints.lookup(v); }

  /// Values that depend on a parameter; only they need adjoints.
  llvm::DenseSet<Value> active;

  /// adjoint(v) += delta.
  void accumulate(Value v, Value delta) {
    if (!active.contains(v) || !isa<FloatType>(tensorTypeOf(v).getElementType()))
      return;
    Value &slot = adjoints[v];
    slot = slot ? b.create<AddOp>(loc, slot.getType(), slot, delta).getResult() : delta;
  }

  Value zeros(Type type) { return b.create<ZerosOp>(loc, type); }

  /// The adjoint of a trailing-broadcast operand: summed down to its shape.
  Value sumTo(Value grad, Type target) {
    if (grad.getType() == target)
      return grad;
    return b.create<SumToOp>(loc, target, grad);
  }

  /// `v` viewed as a matrix [rows, last dimension].
  Value flatten(Value v) {
    auto t = tensorTypeOf(v);
    if (t.getRank() == 2)
      return v;
    int64_t cols = t.getShape().back();
    auto flat = RankedTensorType::get({t.getNumElements() / cols, cols}, t.getElementType());
    return b.create<ReshapeOp>(loc, flat, v);
  }

  LogicalResult visit(Operation *op);

  /// Stacked weight -> per-layer adjoints collected from mt.slice_layer.
  llvm::MapVector<Value, SmallVector<Value>> layerAdjoints;

private:
  LogicalResult visitLinear(LinearOp op, Value dy);
  LogicalResult visitMatmul(MatmulOp op, Value dy);

  OpBuilder &b;
  Location loc = b.getUnknownLoc();
  llvm::DenseMap<Value, Value> adjoints;
};

LogicalResult Differentiator::visitLinear(LinearOp op, Value dy) {
  auto dyType = tensorTypeOf(dy);
  if (dyType.getRank() < 2)
    return op.emitError("mt-derive-gradients: mt.linear of a rank-1 input is not supported");
  // dx = dy W; dW = dy^T x over all rows; db = sum of dy over rows.
  accumulate(op.getInput(), b.create<MatmulOp>(loc, op.getInput().getType(), dy,
                                               op.getWeight(), false, false));
  accumulate(op.getWeight(), b.create<MatmulOp>(loc, op.getWeight().getType(), flatten(dy),
                                                flatten(op.getInput()), true, false));
  if (op.getBias())
    accumulate(op.getBias(), sumTo(dy, op.getBias().getType()));
  return success();
}

LogicalResult Differentiator::visitMatmul(MatmulOp op, Value dc) {
  Value a = op.getLhs(), bm = op.getRhs();
  bool ta = op.getTransposeLhs(), tb = op.getTransposeRhs();
  bool broadcastRhs = tensorTypeOf(bm).getRank() == 2 && tensorTypeOf(a).getRank() > 2;
  if (ta && broadcastRhs)
    return op.emitError("mt-derive-gradients: mt.matmul with transpose_lhs and a shared "
                        "matrix rhs is not supported");
  // With A' = op(a), B' = op(b): dA' = dC B'^T, dB' = A'^T dC.
  if (!ta)
    accumulate(a, b.create<MatmulOp>(loc, a.getType(), dc, bm, false, !tb));
  else
    accumulate(a, b.create<MatmulOp>(loc, a.getType(), bm, dc, tb, true));
  if (broadcastRhs) {
    // Sum over the batch: rows of a (and dC) flattened.
    Value a2 = flatten(a), dc2 = flatten(dc);
    accumulate(bm, tb ? b.create<MatmulOp>(loc, bm.getType(), dc2, a2, true, false)
                      : b.create<MatmulOp>(loc, bm.getType(), a2, dc2, true, false));
  } else if (!tb) {
    accumulate(bm, b.create<MatmulOp>(loc, bm.getType(), a, dc, !ta, false));
  } else {
    accumulate(bm, b.create<MatmulOp>(loc, bm.getType(), dc, a, true, ta));
  }
  return success();
}

LogicalResult Differentiator::visit(Operation *op) {
  loc = op->getLoc(); // backward ops point at the forward op they differentiate
  if (op->getNumResults() == 0)
    return success();
  // Ops none of whose results reach the loss need no rule.
  if (llvm::none_of(op->getResults(), [&](Value r) { return adjoint(r); }))
    return success();
  Value dy = op->getNumResults() == 1 ? adjoint(op->getResult(0)) : Value();

  if (auto e = dyn_cast<EmbeddingOp>(op)) {
    accumulate(e.getTable(), b.create<EmbeddingGradOp>(loc, e.getTable().getType(), dy,
                                                       e.getIds(), e.getShard()));
  } else if (auto p = dyn_cast<PositionEmbeddingOp>(op)) {
    accumulate(p.getTable(),
               b.create<PositionEmbeddingGradOp>(loc, p.getTable().getType(), dy));
  } else if (auto l = dyn_cast<LinearOp>(op)) {
    return visitLinear(l, dy);
  } else if (auto m = dyn_cast<MatmulOp>(op)) {
    return visitMatmul(m, dy);
  } else if (auto n = dyn_cast<LayerNormOp>(op)) {
    auto g = b.create<LayerNormGradOp>(loc, n.getInput().getType(), n.getGamma().getType(),
                                       n.getGamma().getType(), dy, n.getInput(), n.getGamma(),
                                       Value(), n.getEpsilonAttr());
    accumulate(n.getInput(), g.getGradInput());
    accumulate(n.getGamma(), g.getGradGamma());
    accumulate(n.getBeta(), g.getGradBeta());
  } else if (auto n = dyn_cast<AddLayerNormOp>(op)) {
    // The sum's own gradient (the residual stream's) is added in the norm's
    // backward kernel; input and residual both receive the total.
    Value dsum = adjoint(n.getSum()), dnorm = adjoint(n.getResult());
    Value total = dsum;
    if (dnorm) {
      auto g = b.create<LayerNormGradOp>(loc, n.getInput().getType(), n.getGamma().getType(),
                                         n.getGamma().getType(), dnorm, n.getSum(), n.getGamma(),
                                         dsum, n.getEpsilonAttr());
      total = g.getGradInput();
      accumulate(n.getGamma(), g.getGradGamma());
      accumulate(n.getBeta(), g.getGradBeta());
    }
    accumulate(n.getInput(), total);
    accumulate(n.getResidual(), total);
  } else if (auto n = dyn_cast<RmsNormOp>(op)) {
    auto g = b.create<RmsNormGradOp>(loc, n.getInput().getType(), n.getGamma().getType(), dy,
                                     n.getInput(), n.getGamma(), n.getEpsilonAttr());
    accumulate(n.getInput(), g.getGradInput());
    accumulate(n.getGamma(), g.getGradGamma());
  } else if (auto g = dyn_cast<GeluOp>(op)) {
    accumulate(g.getInput(), b.create<GeluGradOp>(loc, dy.getType(), dy, g.getInput(),
                                                  g.getApproximateAttr()));
  } else if (auto g = dyn_cast<BiasGeluOp>(op)) {
    Value d = b.create<BiasGeluGradOp>(loc, dy.getType(), dy, g.getInput(), g.getBias(),
                                       g.getApproximateAttr());
    accumulate(g.getInput(), d);
    accumulate(g.getBias(), sumTo(d, g.getBias().getType()));
  } else if (auto s = dyn_cast<SoftmaxOp>(op)) {
    accumulate(s.getInput(), b.create<SoftmaxGradOp>(loc, dy.getType(), dy, s.getResult(),
                                                     s.getScaleAttr()));
  } else if (auto d = dyn_cast<DropoutOp>(op)) {
    // The mask is a function of the key, so applying the same dropout to the
    // gradient multiplies it by exactly the forward mask.
    auto back = cast<DropoutOp>(b.clone(*d));
    back->setOperand(0, dy);
    accumulate(d.getInput(), back.getResult());
  } else if (auto f = dyn_cast<BiasDropoutAddOp>(op)) {
    // The residual passes the gradient on; the dropout with the same key is
    // its own VJP, and the bias sums what reaches it.
    accumulate(f.getResidual(), dy);
    auto back = b.create<DropoutOp>(loc, dy.getType(), dy, f.getSeed(), f.getShard(),
                                    f.getRateAttr(), f.getStreamAttr(), f.getLayerAttr(),
                                    f.getShardDimAttr(), f.getShardPartsAttr());
    accumulate(f.getInput(), back.getResult());
    accumulate(f.getBias(), sumTo(back.getResult(), f.getBias().getType()));
  } else if (auto m = dyn_cast<MaskedScaleOp>(op)) {
    // Linear in the input: the stored mask applies to the gradient too.
    accumulate(m.getInput(), b.create<MaskedScaleOp>(loc, dy.getType(), dy, m.getMask(),
                                                     m.getScaleAttr()));
  } else if (auto a = dyn_cast<AddOp>(op)) {
    accumulate(a.getLhs(), dy);
    accumulate(a.getRhs(), sumTo(dy, a.getRhs().getType()));
  } else if (auto m = dyn_cast<MulOp>(op)) {
    accumulate(m.getLhs(), b.create<MulOp>(loc, dy.getType(), dy, m.getRhs()));
    accumulate(m.getRhs(), sumTo(b.create<MulOp>(loc, dy.getType(), dy, m.getLhs()),
                                 m.getRhs().getType()));
  } else if (auto s = dyn_cast<SplitOp>(op)) {
    SmallVector<Value> pieces;
    for (Value r : s.getResults())
      pieces.push_back(adjoint(r) ? adjoint(r) : zeros(r.getType()));
    accumulate(s.getInput(), b.create<ConcatOp>(loc, s.getInput().getType(), pieces,
                                                s.getDimAttr()));
  } else if (auto c = dyn_cast<ConcatOp>(op)) {
    SmallVector<int64_t> sizes;
    for (Value v : c.getInputs())
      sizes.push_back(tensorTypeOf(v).getDimSize(c.getDimAttr().getInt()));
    auto split = b.create<SplitOp>(loc, c.getInputs().getTypes(), dy, c.getDimAttr(),
                                   b.getDenseI64ArrayAttr(sizes));
    for (auto [v, r] : llvm::zip(c.getInputs(), split.getResults()))
      accumulate(v, r);
  } else if (auto s = dyn_cast<SplitHeadsOp>(op)) {
    accumulate(s.getInput(), b.create<MergeHeadsOp>(loc, s.getInput().getType(), dy));
  } else if (auto m = dyn_cast<MergeHeadsOp>(op)) {
    int64_t heads = tensorTypeOf(m.getInput()).getDimSize(1);
    accumulate(m.getInput(), b.create<SplitHeadsOp>(loc, m.getInput().getType(), dy,
                                                    b.getI64IntegerAttr(heads)));
  } else if (auto s = dyn_cast<AttentionScoresOp>(op)) {
    accumulate(s.getQuery(), b.create<AttentionContextOp>(loc, s.getQuery().getType(), dy,
                                                          s.getKey()));
    accumulate(s.getKey(), b.create<AttentionKVGradOp>(loc, s.getKey().getType(), dy,
                                                       s.getQuery()));
  } else if (auto c = dyn_cast<AttentionContextOp>(op)) {
    accumulate(c.getProbs(), b.create<AttentionScoresOp>(loc, c.getProbs().getType(), dy,
                                                         c.getValue()));
    accumulate(c.getValue(), b.create<AttentionKVGradOp>(loc, c.getValue().getType(),
                                                         c.getProbs(), dy));
  } else if (auto r = dyn_cast<RotaryOp>(op)) {
    auto back = cast<RotaryOp>(b.clone(*r));
    back->setOperand(0, dy);
    back.setInverse(!r.getInverse());
    accumulate(r.getInput(), back.getResult());
  } else if (auto a = dyn_cast<AlibiOp>(op)) {
    accumulate(a.getInput(), dy);
  } else if (auto s = dyn_cast<ShardOp>(op)) {
    accumulate(s.getInput(), dy);
  } else if (auto v = dyn_cast<VaryOp>(op)) {
    // Each rank's adjoint is its own contribution: sum them (Megatron's f).
    accumulate(v.getInput(),
               b.create<AllReduceOp>(loc, dy.getType(), dy, v.getMeshAttr(), v.getAxesAttr(),
                                     ReductionKindAttr::get(b.getContext(), ReductionKind::sum)));
  } else if (auto a = dyn_cast<AllReduceOp>(op)) {
    // The sum's adjoint reaches every addend unchanged; the adjoint of the
    // replicated result is the same on every rank.
    if (a.getReduction() != ReductionKind::sum)
      return op->emitError("mt-derive-gradients: only a sum all-reduce is differentiable");
    accumulate(a.getInput(), dy);
  } else if (auto g = dyn_cast<AllGatherOp>(op)) {
    // The gathered value feeds per-rank work: its adjoint is a partial sum,
    // of which each rank keeps its own piece, summed.
    accumulate(g.getInput(),
               b.create<ReduceScatterOp>(loc, g.getInput().getType(), dy, g.getMeshAttr(),
                                         g.getAxesAttr(), g.getDimAttr(),
                                         ReductionKindAttr::get(b.getContext(), ReductionKind::sum)));
  } else if (auto r = dyn_cast<ReduceScatterOp>(op)) {
    if (r.getReduction() != ReductionKind::sum)
      return op->emitError("mt-derive-gradients: only a sum reduce-scatter is differentiable");
    accumulate(r.getInput(), b.create<AllGatherOp>(loc, r.getInput().getType(), dy,
                                                   r.getMeshAttr(), r.getAxesAttr(),
                                                   r.getDimAttr()));
  } else if (auto s = dyn_cast<ShardSliceOp>(op)) {
    accumulate(s.getInput(), b.create<ShardSliceGradOp>(loc, s.getInput().getType(), dy,
                                                        s.getIndex(), s.getDimAttr(),
                                                        s.getPartsAttr()));
  } else if (auto s = dyn_cast<VocabParallelStatsOp>(op)) {
    Value dSumExp = adjoint(s.getSumExp()), dLabel = adjoint(s.getLabelLogit());
    if (!dSumExp)
      dSumExp = zeros(s.getSumExp().getType());
    if (!dLabel)
      dLabel = zeros(s.getLabelLogit().getType());
    accumulate(s.getLogits(), b.create<VocabParallelStatsGradOp>(
                                  loc, s.getLogits().getType(), dSumExp, dLabel, s.getLogits(),
                                  s.getShard(), s.getLabels(), s.getMax(), s.getNumClassesAttr()));
  } else if (auto c = dyn_cast<CrossEntropyFromStatsOp>(op)) {
    auto g = b.create<CrossEntropyFromStatsGradOp>(loc, c.getSumExp().getType(),
                                                   c.getSumExp().getType(), dy, c.getSumExp(),
                                                   c.getLossMask());
    accumulate(c.getSumExp(), g.getGradSumExp());
    accumulate(c.getLabelLogit(), g.getGradLabelLogit());
    // The row maximum only shifts the exponentials: no gradient.
  } else if (auto c = dyn_cast<CrossEntropyOp>(op)) {
    accumulate(c.getLogits(),
               b.create<CrossEntropyGradOp>(loc, c.getLogits().getType(), dy, c.getLogits(),
                                            c.getLabels(), c.getLossMask(),
                                            c.getNumClassesAttr()));
  } else if (auto r = dyn_cast<ReshapeOp>(op)) {
    accumulate(r.getInput(), b.create<ReshapeOp>(loc, r.getInput().getType(), dy));
  } else if (auto c = dyn_cast<ConvertOp>(op)) {
    accumulate(c.getInput(), b.create<ConvertOp>(loc, c.getInput().getType(), dy));
  } else if (auto s = dyn_cast<SliceLayerOp>(op)) {
    auto &perLayer = layerAdjoints[s.getInput()];
    perLayer.resize(tensorTypeOf(s.getInput()).getDimSize(0));
    Value &slot = perLayer[s.getLayerAttr().getInt()];
    slot = slot ? b.create<AddOp>(loc, slot.getType(), slot, dy).getResult() : dy;
  } else if (auto s = dyn_cast<StackLayersOp>(op)) {
    for (auto [i, v] : llvm::enumerate(s.getInputs()))
      accumulate(v, b.create<SliceLayerOp>(loc, v.getType(), dy,
                                           b.getI64IntegerAttr(static_cast<int64_t>(i))));
  } else if (isa<ZerosOp, arith::ConstantOp, AxisIndexOp, VocabParallelMaxOp>(op)) {
    // constants, and the loss's row maximum (see CrossEntropyFromStatsOp)
    // constants
  } else {
    return op->emitError() << "mt-derive-gradients: no vector-Jacobian rule for '"
                           << op->getName() << "'";
  }
  return success();
}

/// The argument marked mt.batch = "loss_scale", if there is one.
std::optional<unsigned> lossScaleArgument(func::FuncOp fn) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, kBatchAttrName);
        name && name.getValue() == kLossScaleBatchName)
      return i;
  return std::nullopt;
}

LogicalResult deriveGradients(func::FuncOp forward) {
  if (!forward.getBody().hasOneBlock())
    return forward.emitError("mt-derive-gradients: the model must be a single block");
  bool ready = true;
  forward.walk([&](Operation *op) {
    if (isa<LayerStackOp>(op)) {
      op->emitError("mt-derive-gradients: run mt-unroll-layers first");
      ready = false;
    }
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t); r && !r.hasStaticShape()) {
        op->emitError("mt-derive-gradients: run mt-specialize-shapes first (dynamic sizes)");
        ready = false;
      }
  });
  if (!ready)
    return failure();

  // @f_grad starts as a copy of @f.
  OpBuilder moduleBuilder(forward);
  moduleBuilder.setInsertionPointAfter(forward);
  auto grad = cast<func::FuncOp>(moduleBuilder.clone(*forward));
  grad.setSymName((forward.getSymName() + "_grad").str());
  grad->setAttr(kGradientOfAttrName, FlatSymbolRefAttr::get(forward.getSymNameAttr()));
  Block &entry = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  Value loss = ret.getOperand(0);
  // A pipeline stage before the last returns its activation, not a loss:
  // its vector-Jacobian product takes the activation's cotangent (from the
  // next stage) as an extra argument and also returns the cotangent of its
  // `mt.stage_input` argument (for the previous stage).
  auto lossType = tensorTypeOf(loss);
  bool stageOutput = lossType.getRank() != 0;
  std::optional<unsigned> stageInput;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (grad.getArgAttr(i, kStageInputAttrName))
      stageInput = i;

  OpBuilder b(ret);
  Differentiator diff(b);
  Value seed;
  if (stageOutput) {
    unsigned index = entry.getNumArguments();
    grad.insertArgument(index, lossType,
                        b.getDictionaryAttr(b.getNamedAttr(kCotangentAttrName, b.getUnitAttr())),
                        grad.getLoc());
    seed = entry.getArgument(index);
  } else if (std::optional<unsigned> scale = lossScaleArgument(grad)) {
    // fp16: the backward starts from the loss scale; the trainer divides
    // the gradients by it.
    seed = entry.getArgument(*scale);
    if (seed.getType() != lossType) {
      grad.emitError("mt-derive-gradients: the loss scale must have the loss's type ")
          << lossType << ", got " << seed.getType();
      return failure();
    }
  } else {
    seed = b.create<arith::ConstantOp>(
        grad.getLoc(),
        DenseElementsAttr::get(lossType, b.getFloatAttr(lossType.getElementType(), 1.0)));
  }
  for (const ParamInfo &p : collectParams(grad))
    diff.active.insert(entry.getArgument(p.argNumber));
  if (stageInput)
    diff.active.insert(entry.getArgument(*stageInput));
  for (Operation &op : entry.without_terminator())
    if (llvm::any_of(op.getOperands(), [&](Value v) { return diff.active.contains(v); }))
      diff.active.insert(op.result_begin(), op.result_end());
  diff.accumulate(loss, seed);

  SmallVector<Operation *> forwardOps;
  for (Operation &op : entry.without_terminator())
    if (&op != seed.getDefiningOp())
      forwardOps.push_back(&op);
  // Every op built from here on is the backward pass; an op's adjoints
  // belong to its layer.
  auto markBackward = [&](Operation *from, Attribute layer) {
    for (Operation *o = from ? from->getNextNode() : &entry.front(); o && o != ret.getOperation();
         o = o->getNextNode()) {
      if (o->hasAttr(kBackwardAttrName))
        continue;
      o->setAttr(kBackwardAttrName, b.getUnitAttr());
      if (layer)
        o->setAttr(kLayerAttrName, layer);
    }
  };
  Operation *last = ret->getPrevNode();
  markBackward(forwardOps.empty() ? nullptr : forwardOps.back(), {});
  for (Operation *op : llvm::reverse(forwardOps)) {
    if (failed(diff.visit(op)))
      return failure();
    markBackward(last, op->getAttr(kLayerAttrName));
    last = ret->getPrevNode();
  }

  // Stacked weights get their layers' adjoints stacked back together.
  for (auto &[stacked, perLayer] : diff.layerAdjoints) {
    auto layerType = RankedTensorType::get(tensorTypeOf(stacked).getShape().drop_front(),
                                           tensorTypeOf(stacked).getElementType());
    for (Value &v : perLayer)
      if (!v)
        v = diff.zeros(layerType);
    diff.accumulate(stacked, b.create<StackLayersOp>(ret.getLoc(), stacked.getType(),
                                                     perLayer));
  }

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  SmallVector<Attribute> resultAttrs;
  if (!stageOutput) {
    results.push_back(loss);
    resultTypes.push_back(loss.getType());
    resultAttrs.push_back(b.getDictionaryAttr({}));
  }
  for (const ParamInfo &p : collectParams(grad)) {
    Value arg = entry.getArgument(p.argNumber);
    Value g = diff.adjoint(arg);
    results.push_back(g ? g : diff.zeros(arg.getType()));
    resultTypes.push_back(arg.getType());
    resultAttrs.push_back(
        b.getDictionaryAttr(b.getNamedAttr(kGradOfAttrName, b.getStringAttr(p.name))));
  }
  if (stageInput) {
    Value arg = entry.getArgument(*stageInput);
    Value g = diff.adjoint(arg);
    results.push_back(g ? g : diff.zeros(arg.getType()));
    resultTypes.push_back(arg.getType());
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(kStageInputGradAttrName, b.getUnitAttr())));
  }
  // The stacking of layer adjoints and zero gradients are backward too.
  markBackward(last, {});
  b.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  grad.setType(FunctionType::get(grad.getContext(), entry.getArgumentTypes(), resultTypes));
  grad.setAllResultAttrs(resultAttrs);

  // Rules build adjoints of every operand; drop those nothing uses (for
  // example the gradient of an input batch).
  SmallVector<Operation *> ops;
  for (Operation &op : entry.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return success();
}

struct DeriveGradientsPass : mt::impl::DeriveGradientsPassBase<DeriveGradientsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : modelFunctions(getOperation()))
      if (failed(deriveGradients(func)))
        return signalPassFailure();
  }
};

} // namespace
