//===- SplitStageStep.cpp - a pipeline stage keeps its activations ---------===//
//
// A stage before the last runs its forward when the schedule says, sends its
// output on, and runs its backward later, when the output's cotangent comes
// back. mt-derive-gradients builds @f_stageK_grad as forward then backward;
// run as is, the backward would compute the stage's forward a second time.
// This pass cuts the gradient function in two:
//
// * @f_stageK (the forward) becomes the gradient function's forward ops,
//   returning the stage output and, with `mt.saved = i`, every forward value
//   the backward reads (the set mtc --report-memory counts as saved);
// * @f_stageK_grad keeps only the backward ops and takes those values as
//   arguments `mt.saved = i`.
//
// Values computed from parameters and constants alone (a bf16 copy of a
// weight) are computed again in the backward rather than kept per
// micro-batch, as is a rate-0 dropout (its input, not a copy). The runtime
// keeps one set of saved buffers per micro-batch in flight.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mt {
#define GEN_PASS_DEF_SPLITSTAGESTEPPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

/// A rate-0 dropout lowers to its input: cheaper to apply again than to keep.
bool isAlias(Operation *op) {
  auto d = dyn_cast<DropoutOp>(op);
  return d && d.getRate().convertToDouble() == 0.0;
}

/// What the backward reads of the forward, and how it gets it.
struct Cut {
  llvm::SetVector<Operation *> recomputed; // cheap forward ops cloned into the backward
  llvm::SetVector<Value> saved;            // forward values passed from the forward
};

/// Forward ops whose results depend on parameters and constants only.
llvm::DenseSet<Operation *> parameterOnlyOps(func::FuncOp grad, Block &entry) {
  llvm::DenseSet<Value> fixed;
  for (BlockArgument arg : entry.getArguments())
    if (grad.getArgAttr(arg.getArgNumber(), kParamAttrName))
      fixed.insert(arg);
  llvm::DenseSet<Operation *> ops;
  for (Operation &op : entry.without_terminator()) {
    if (isBackward(&op) || !isPure(&op) || op.getNumRegions() != 0)
      continue;
    if (llvm::all_of(op.getOperands(), [&](Value v) { return fixed.contains(v); })) {
      fixed.insert(op.result_begin(), op.result_end());
      ops.insert(&op);
    }
  }
  return ops;
}

Cut findCut(func::FuncOp grad, Block &entry) {
  llvm::DenseSet<Operation *> cheap = parameterOnlyOps(grad, entry);
  Cut cut;
  SmallVector<Value> work;
  auto need = [&](Value v) { work.push_back(v); };
  for (Operation &op : entry)
    if (isBackward(&op) || isa<func::ReturnOp>(op))
      for (Value v : op.getOperands())
        need(v);
  // The stage output is returned by the forward, not read by the backward.
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  for (unsigned i = 0; i < grad.getNumResults(); ++i)
    if (grad.getResultAttr(i, kStageOutputAttrName))
      work.erase(llvm::find(work, ret.getOperand(i)));
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def) {
      // Arguments stay the backward's, except the stage input: its buffer
      // holds a later micro-batch's by the time the backward runs.
      if (grad.getArgAttr(cast<BlockArgument>(v).getArgNumber(), kStageInputAttrName))
        cut.saved.insert(v);
      continue;
    }
    if (isBackward(def))
      continue;
    if (cheap.contains(def) || isAlias(def)) {
      cut.recomputed.insert(def);
      for (Value operand : def->getOperands())
        need(operand);
      continue;
    }
    cut.saved.insert(v);
  }
  // In forward order: arguments, then values as their ops come.
  llvm::DenseMap<Value, int64_t> order;
  int64_t n = 0;
  for (BlockArgument arg : entry.getArguments())
    order[arg] = n++;
  for (Operation &op : entry)
    for (Value r : op.getResults())
      order[r] = n++;
  SmallVector<Value> sorted(cut.saved.begin(), cut.saved.end());
  llvm::sort(sorted, [&](Value a, Value b) { return order[a] < order[b]; });
  cut.saved = llvm::SetVector<Value>(sorted.begin(), sorted.end());
  return cut;
}

LogicalResult split(func::FuncOp forward, func::FuncOp grad) {
  Block &entry = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  unsigned numForwardArgs = forward.getNumArguments();
  if (grad.getNumArguments() < numForwardArgs ||
      !llvm::equal(forward.getArgumentTypes(), grad.getArgumentTypes().take_front(numForwardArgs)))
    return grad.emitError("mt-split-stage-step: @") << grad.getSymName() << " does not start with @"
                                                    << forward.getSymName() << "'s arguments";
  std::optional<unsigned> outputIndex;
  for (unsigned i = 0; i < grad.getNumResults(); ++i)
    if (grad.getResultAttr(i, kStageOutputAttrName))
      outputIndex = i;
  if (!outputIndex)
    return grad.emitError("mt-split-stage-step: @")
           << grad.getSymName()
           << " returns no stage output (mt.stage_output); run "
              "mt-derive-gradients first";
  for (Operation &op : entry.without_terminator())
    if (!isBackward(&op))
      for (Value v : op.getOperands())
        if (Operation *def = v.getDefiningOp(); def && isBackward(def))
          return op.emitError("mt-split-stage-step: a forward op reads a backward value");
  Cut cut = findCut(grad, entry);
  OpBuilder b(grad.getContext());

  // The forward: the gradient function's forward ops, returning the stage
  // output and then the saved values.
  Block &body = forward.getBody().front();
  body.getTerminator()->erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    op.erase();
  IRMapping toForward;
  for (unsigned i = 0; i < numForwardArgs; ++i)
    toForward.map(entry.getArgument(i), body.getArgument(i));
  b.setInsertionPointToEnd(&body);
  for (Operation &op : entry.without_terminator())
    if (!isBackward(&op))
      b.clone(op, toForward);
  SmallVector<Value> results{toForward.lookup(ret.getOperand(*outputIndex))};
  SmallVector<Attribute> resultAttrs{forward.getResultAttrDict(0)
                                         ? Attribute(forward.getResultAttrDict(0))
                                         : b.getDictionaryAttr({})};
  for (auto [i, v] : llvm::enumerate(cut.saved)) {
    results.push_back(toForward.lookup(v));
    resultAttrs.push_back(
        b.getDictionaryAttr(b.getNamedAttr(kSavedAttrName, b.getI64IntegerAttr(i))));
  }
  func::ReturnOp::create(b, ret.getLoc(), results);
  forward.setType(b.getFunctionType(forward.getArgumentTypes(), ValueRange(results).getTypes()));
  forward.setAllResultAttrs(resultAttrs);
  // (Collected first: a reverse iterator over a range cannot survive erasure.)
  SmallVector<Operation *> forwardOps;
  for (Operation &op : body.without_terminator())
    forwardOps.push_back(&op);
  for (Operation *op : llvm::reverse(forwardOps))
    if (isOpTriviallyDead(op))
      op->erase();

  // The backward: saved values come in as arguments, cheap ones are
  // computed again, and the forward ops go.
  IRMapping toBackward;
  for (auto [i, v] : llvm::enumerate(cut.saved)) {
    Operation *def = v.getDefiningOp();
    std::string from = def ? def->getName().getStringRef().str() : "stage input";
    unsigned index = grad.getNumArguments();
    if (failed(grad.insertArgument(
            index, v.getType(),
            b.getDictionaryAttr({b.getNamedAttr(kSavedAttrName, b.getI64IntegerAttr(i)),
                                 b.getNamedAttr(kSavedFromAttrName, b.getStringAttr(from))}),
            v.getLoc())))
      return failure();
    toBackward.map(v, entry.getArgument(index));
  }
  b.setInsertionPointToStart(&entry);
  SmallVector<Value> replaced(cut.saved.begin(), cut.saved.end());
  for (Operation &op : entry.without_terminator()) {
    if (!cut.recomputed.contains(&op))
      continue;
    Operation *copy = b.clone(op, toBackward);
    copy->setAttr(kBackwardAttrName, b.getUnitAttr());
    replaced.append(op.result_begin(), op.result_end());
  }
  for (Value v : replaced)
    v.replaceUsesWithIf(toBackward.lookup(v), [](OpOperand &use) {
      return isBackward(use.getOwner()) || isa<func::ReturnOp>(use.getOwner());
    });
  ret->eraseOperand(*outputIndex);
  SmallVector<Attribute> gradAttrs;
  for (unsigned i = 0; i < grad.getNumResults(); ++i)
    if (i != *outputIndex)
      gradAttrs.push_back(grad.getResultAttrDict(i) ? Attribute(grad.getResultAttrDict(i))
                                                    : b.getDictionaryAttr({}));
  grad.setType(b.getFunctionType(grad.getArgumentTypes(), ret.getOperandTypes()));
  grad.setAllResultAttrs(gradAttrs);
  SmallVector<Operation *> stepOps;
  for (Operation &op : entry.without_terminator())
    if (!isBackward(&op))
      stepOps.push_back(&op);
  for (Operation *op : llvm::reverse(stepOps)) {
    if (!op->use_empty())
      return op->emitError("mt-split-stage-step: the backward still reads this forward op");
    op->erase();
  }
  return success();
}

struct SplitStageStepPass : mt::impl::SplitStageStepPassBase<SplitStageStepPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp forward : modelFunctions(module)) {
      auto grad = module.lookupSymbol<func::FuncOp>((forward.getSymName() + "_grad").str());
      if (!grad || grad.isExternal())
        continue;
      bool hasCotangent = false;
      for (unsigned i = 0; i < grad.getNumArguments(); ++i)
        hasCotangent |= static_cast<bool>(grad.getArgAttr(i, kCotangentAttrName));
      if (hasCotangent && failed(split(forward, grad)))
        return signalPassFailure();
    }
  }
};

} // namespace
