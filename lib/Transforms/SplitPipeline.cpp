//===- SplitPipeline.cpp - one function per pipeline stage -----------------===//
//
// Cuts a model along its mt.layer_stack: stage k gets a contiguous range of
// layers (a slice of every stacked weight), the first stage what comes
// before the stack, the last what comes after. Values cross stages only as
// the stack's carried activation, which becomes the stage output and the
// next stage's `mt.stage_input`.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Schedule/PipelineSchedule.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"

namespace mt {
#define GEN_PASS_DEF_SPLITPIPELINEPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// The model's single top-level stack, or an error.
FailureOr<LayerStackOp> findStack(func::FuncOp model) {
  SmallVector<LayerStackOp> stacks;
  for (Operation &op : model.getBody().front())
    if (auto s = dyn_cast<LayerStackOp>(op))
      stacks.push_back(s);
  if (stacks.size() != 1)
    return model.emitError("mt-split-pipeline: pipeline parallelism cuts the model along its "
                           "mt.layer_stack; @")
           << model.getSymName() << " has " << stacks.size() << " (expected exactly one)";
  LayerStackOp stack = stacks.front();
  if (stack.getCarried().size() != 1)
    return stack.emitError("mt-split-pipeline: the stack must carry exactly one activation "
                           "between layers, it carries ")
           << stack.getCarried().size();
  for (Value w : stack.getStacked())
    if (!isa<BlockArgument>(w) || !model.getArgAttr(cast<BlockArgument>(w).getArgNumber(),
                                                    kParamAttrName))
      return stack.emitError("mt-split-pipeline: every stacked operand must be a parameter "
                             "of the model");
  return stack;
}

/// Checks that only the stack's result carries values from before the stack
/// to after it (function arguments are available to every stage).
LogicalResult checkCrossings(func::FuncOp model, LayerStackOp stack) {
  Block &entry = model.getBody().front();
  bool before = true;
  DenseSet<Operation *> prologue;
  for (Operation &op : entry.without_terminator()) {
    if (&op == stack.getOperation()) {
      before = false;
      continue;
    }
    if (before)
      prologue.insert(&op);
  }
  LogicalResult result = success();
  auto check = [&](Operation *user, Value v, StringRef where) {
    Operation *def = v.getDefiningOp();
    if (def && prologue.contains(def) && failed(result) == false) {
      result = user->emitError("mt-split-pipeline: this op ")
               << where << " uses a value computed before the layer stack (" << def->getName()
               << "); only the stack's carried activation may cross pipeline stages";
    }
  };
  stack.getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands())
      check(op, v, "inside the layer stack");
  });
  for (Operation *op = stack->getNextNode(); op; op = op->getNextNode())
    for (Value v : op->getOperands())
      check(op, v, "after the layer stack");
  return result;
}

LogicalResult split(ModuleOp module, func::FuncOp model, int64_t numStages) {
  FailureOr<LayerStackOp> found = findStack(model);
  if (failed(found))
    return failure();
  LayerStackOp stack = *found;
  if (failed(checkCrossings(model, stack)))
    return failure();
  int64_t layers = stack.getNumLayers();
  std::vector<int64_t> counts = splitLayers(layers, numStages);
  if (counts.empty())
    return model.emitError("mt-split-pipeline: cannot cut ")
           << layers << " layers into " << numStages
           << " pipeline stages (pipeline size x virtual stages); every stage needs at least "
              "one layer: lower --pp or --virtual-stages to at most "
           << layers << " stages in all";
  int64_t baseLayer = stack.getFirstLayerAttr() ? stack.getFirstLayerAttr().getInt() : 0;

  Block &entry = model.getBody().front();
  DenseMap<Value, unsigned> stackedIndex;
  for (auto [i, w] : llvm::enumerate(stack.getStacked()))
    stackedIndex[w] = i;
  Type activation = stack.getCarried().front().getType();
  OpBuilder b(module.getContext());
  b.setInsertionPoint(model);
  int64_t firstLayer = 0;
  for (int64_t k = 0; k < numStages; ++k) {
    bool first = k == 0, last = k == numStages - 1;
    int64_t count = counts[static_cast<size_t>(k)];
    // Arguments: [stage input] + the model's, stacked parameters sliced.
    SmallVector<Type> argTypes;
    if (!first)
      argTypes.push_back(activation);
    unsigned offset = argTypes.size();
    for (BlockArgument arg : entry.getArguments()) {
      auto t = cast<RankedTensorType>(arg.getType());
      if (stackedIndex.count(arg)) {
        SmallVector<int64_t> shape(t.getShape());
        shape[0] = count;
        argTypes.push_back(RankedTensorType::get(shape, t.getElementType()));
      } else {
        argTypes.push_back(t);
      }
    }
    // The last stage returns the loss and any metrics.
    SmallVector<Type> resultTypes =
        last ? SmallVector<Type>(model.getResultTypes()) : SmallVector<Type>{activation};
    auto fn = func::FuncOp::create(b, model.getLoc(),
                                     (model.getSymName() + "_stage" + Twine(k)).str(),
                                     b.getFunctionType(argTypes, resultTypes));
    Block *body = fn.addEntryBlock();
    IRMapping mapping;
    for (BlockArgument arg : entry.getArguments())
      mapping.map(arg, body->getArgument(offset + arg.getArgNumber()));
    OpBuilder fb = OpBuilder::atBlockEnd(body);
    Value carriedIn;
    if (first) {
      for (Operation *op = &entry.front(); op != stack.getOperation(); op = op->getNextNode())
        fb.clone(*op, mapping);
      carriedIn = mapping.lookup(stack.getCarried().front());
    } else {
      carriedIn = body->getArgument(0);
    }
    SmallVector<Value> stacked;
    for (Value w : stack.getStacked())
      stacked.push_back(mapping.lookup(w));
    auto part = LayerStackOp::create(fb, stack.getLoc(), stack.getResultTypes(),
                                        ValueRange{carriedIn}, stacked,
                                        fb.getI64IntegerAttr(baseLayer + firstLayer));
    stack.getBody().cloneInto(&part.getBody(), mapping);
    Value result = part.getResult(0);
    if (last) {
      mapping.map(stack.getResult(0), result);
      for (Operation *op = stack->getNextNode(); op; op = op->getNextNode())
        fb.clone(*op, mapping);
    } else {
      func::ReturnOp::create(fb, model.getLoc(), result);
    }

    // Attributes, then drop the arguments this stage does not use.
    for (BlockArgument arg : entry.getArguments()) {
      unsigned i = offset + arg.getArgNumber();
      fn.setArgAttrs(i, model.getArgAttrDict(arg.getArgNumber()));
      if (stackedIndex.count(arg))
        fn.setArgAttr(i, kFirstLayerAttrName, fb.getI64IntegerAttr(baseLayer + firstLayer));
    }
    if (!first)
      fn.setArgAttr(0, kStageInputAttrName, fb.getUnitAttr());
    if (last)
      fn.setAllResultAttrs(model.getAllResultAttrs());
    llvm::BitVector unused(body->getNumArguments());
    for (unsigned i = offset; i < body->getNumArguments(); ++i)
      if (body->getArgument(i).use_empty())
        unused.set(i);
    if (failed(fn.eraseArguments(unused)))
      return fn.emitError("mt-split-pipeline: cannot drop unused arguments");
    fn->setAttr(kStageAttrName, fb.getI64IntegerAttr(k));
    fn->setAttr(kNumStagesAttrName, fb.getI64IntegerAttr(numStages));
    fn->setAttr(kPipelineOfAttrName, fb.getStringAttr(model.getSymName()));
    firstLayer += count;
  }
  model.erase();
  return success();
}

struct SplitPipelinePass : mt::impl::SplitPipelinePassBase<SplitPipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    if (stages < 1 || virtualStages < 1) {
      getOperation().emitError("mt-split-pipeline: stages and virtual-stages must be >= 1");
      return signalPassFailure();
    }
    int64_t total = stages * virtualStages;
    if (total == 1)
      return;
    for (func::FuncOp model : modelFunctions(getOperation()))
      if (failed(split(getOperation(), model, total)))
        return signalPassFailure();
  }
};

} // namespace
