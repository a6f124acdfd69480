//===- DeriveGradients.cpp - reverse-mode autodiff of a model --------------===//
//
// Builds @f_grad: the forward ops of @f, then, walking them backwards, each
// op's vector-Jacobian product (VJP), which the op itself builds
// (DifferentiableOpInterface, in lib/Dialect/MT/IR/MT*Gradients.cpp).
// Adjoints of a value used several times are summed. The rules are listed in
// docs/autodiff.md.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
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

/// Adds the VJP of `op` (its DifferentiableOpInterface rule) to the adjoints
/// of its operands.
LogicalResult visit(GradientBuilder &grad, Operation *op) {
  grad.setLoc(op->getLoc()); // backward ops point at the forward op they differentiate
  // Ops none of whose results reach the loss need no rule; constants have none.
  if (llvm::none_of(op->getResults(), [&](Value r) { return grad.adjoint(r); }) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return success();
  auto rule = dyn_cast<DifferentiableOpInterface>(op);
  if (!rule)
    return op->emitError() << "mt-derive-gradients: no vector-Jacobian rule for '" << op->getName()
                           << "'";
  return rule.buildVjp(grad);
}

/// The argument marked mt.batch = "loss_scale", if there is one.
std::optional<unsigned> lossScaleArgument(func::FuncOp fn) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, kBatchAttrName);
        name && name.getValue() == kLossScaleBatchName)
      return i;
  return std::nullopt;
}

/// The model is one block of unrolled, statically shaped ops.
LogicalResult checkReady(func::FuncOp forward) {
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
  return success(ready);
}

/// Stacked weights get their layers' adjoints stacked back together.
void stackLayerAdjoints(GradientBuilder &diff, Location loc) {
  for (auto &[stacked, perLayer] : diff.layerAdjoints) {
    auto layerType = RankedTensorType::get(tensorTypeOf(stacked).getShape().drop_front(),
                                           tensorTypeOf(stacked).getElementType());
    for (Value &v : perLayer)
      if (!v)
        v = diff.zeros(layerType);
    diff.accumulate(stacked,
                    StackLayersOp::create(diff.builder(), loc, stacked.getType(), perLayer));
  }
}

/// Rules build adjoints of every operand; drop those nothing uses (for
/// example the gradient of an input batch).
void eraseDeadOps(Block &entry) {
  SmallVector<Operation *> ops;
  for (Operation &op : entry.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// The gradient function's results as they are gathered: values, types,
/// attributes.
struct GradientResults {
  SmallVector<Value> values;
  SmallVector<Type> types;
  SmallVector<Attribute> attrs;
  void add(Value v, DictionaryAttr a) {
    values.push_back(v);
    types.push_back(v.getType());
    attrs.push_back(a);
  }
  /// The adjoint of `arg` (zeros when nothing reached it).
  void addAdjoint(GradientBuilder &diff, Value arg, DictionaryAttr a) {
    Value g = diff.adjoint(arg);
    add(g ? g : diff.zeros(arg.getType()), a);
  }
};

LogicalResult deriveGradients(func::FuncOp forward) {
  if (failed(checkReady(forward)))
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
  GradientBuilder diff(b);
  Value seed;
  if (stageOutput) {
    unsigned index = entry.getNumArguments();
    if (failed(grad.insertArgument(
            index, lossType,
            b.getDictionaryAttr(b.getNamedAttr(kCotangentAttrName, b.getUnitAttr())),
            grad.getLoc())))
      return failure();
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
    seed = arith::ConstantOp::create(
        b, grad.getLoc(),
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
    if (failed(visit(diff, op)))
      return failure();
    markBackward(last, op->getAttr(kLayerAttrName));
    last = ret->getPrevNode();
  }

  stackLayerAdjoints(diff, ret.getLoc());

  GradientResults out;
  if (!stageOutput) {
    out.add(loss, b.getDictionaryAttr({}));
    // Metrics pass through, undifferentiated.
    for (unsigned i = 1; i < ret.getNumOperands(); ++i) {
      DictionaryAttr attrs = grad.getResultAttrDict(i);
      out.add(ret.getOperand(i), attrs ? attrs : b.getDictionaryAttr({}));
    }
  }
  for (const ParamInfo &p : collectParams(grad))
    out.addAdjoint(diff, entry.getArgument(p.argNumber),
                   b.getDictionaryAttr(b.getNamedAttr(kGradOfAttrName, b.getStringAttr(p.name))));
  if (stageInput)
    out.addAdjoint(diff, entry.getArgument(*stageInput),
                   b.getDictionaryAttr(b.getNamedAttr(kStageInputGradAttrName, b.getUnitAttr())));
  // The stage's output, last: mt-split-stage-step makes it the result of a
  // forward that also returns what the backward reads.
  if (stageOutput)
    out.add(loss, b.getDictionaryAttr(b.getNamedAttr(kStageOutputAttrName, b.getUnitAttr())));
  // The stacking of layer adjoints and zero gradients are backward too.
  markBackward(last, {});
  func::ReturnOp::create(b, ret.getLoc(), out.values);
  ret.erase();
  grad.setType(FunctionType::get(grad.getContext(), entry.getArgumentTypes(), out.types));
  grad.setAllResultAttrs(out.attrs);

  eraseDeadOps(entry);
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
