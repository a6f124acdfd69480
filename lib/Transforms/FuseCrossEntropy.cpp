//===- FuseCrossEntropy.cpp - the loss and its gradient in one op ---------===//
#include "mt/Transforms/FusionPatterns.h"
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"

namespace mt {
#define GEN_PASS_DEF_FUSECROSSENTROPYPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

Type elementOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

/// What `logits` widened from, when an mt.convert widened them exactly and
/// the loss would keep its type (16-bit logits read as f32); else `logits`.
Value unwidened(Value logits) {
  auto convert = logits.getDefiningOp<ConvertOp>();
  if (!convert)
    return logits;
  Type from = elementOf(convert.getInput()), to = elementOf(logits);
  if (!isa<FloatType>(from) || from.getIntOrFloatBitWidth() >= to.getIntOrFloatBitWidth() ||
      lossElementType(from) != lossElementType(to))
    return logits;
  return convert.getInput();
}

/// The one element type every reader of `grad` converts it to, when it has
/// readers and each is an mt.convert; else null.
Type convertedOnlyTo(Value grad) {
  Type to;
  for (Operation *user : grad.getUsers()) {
    auto convert = dyn_cast<ConvertOp>(user);
    if (!convert || (to && elementOf(convert.getResult()) != to))
      return Type();
    to = elementOf(convert.getResult());
  }
  return to;
}

/// The loss of the same logits, labels, mask and classes as `grad`, in its
/// block, whose readers all come after `grad`.
CrossEntropyOp lossOf(CrossEntropyGradOp grad, DominanceInfo &dominance) {
  for (Operation *user : grad.getLogits().getUsers()) {
    auto loss = dyn_cast<CrossEntropyOp>(user);
    if (!loss || loss->getBlock() != grad->getBlock() || loss.getLogits() != grad.getLogits() ||
        loss.getLabels() != grad.getLabels() || loss.getLossMask() != grad.getLossMask() ||
        loss.getNumClassesAttr() != grad.getNumClassesAttr())
      continue;
    if (llvm::all_of(loss->getUsers(), [&](Operation *reader) {
          return dominance.properlyDominates(grad.getOperation(), reader);
        }))
      return loss;
  }
  return nullptr;
}

void eraseIfUnread(Value v) {
  if (Operation *op = v.getDefiningOp(); op && op->use_empty())
    op->erase();
}

void fuse(CrossEntropyOp loss, CrossEntropyGradOp grad) {
  Value logits = unwidened(grad.getLogits());
  auto gradType = cast<RankedTensorType>(grad.getType());
  Type convertedTo = convertedOnlyTo(grad.getResult());
  if (convertedTo)
    gradType = gradType.clone(convertedTo);
  OpBuilder b(grad);
  auto fused = FusedCrossEntropyOp::create(
      b, grad.getLoc(), loss.getType(), gradType, grad.getGrad(), logits, grad.getLabels(),
      grad.getLossMask(), grad.getNumClassesAttr());
  carryAttributes(grad, fused);
  loss.getResult().replaceAllUsesWith(fused.getLoss());
  if (convertedTo) {
    for (Operation *convert : llvm::make_early_inc_range(grad->getUsers())) {
      convert->getResult(0).replaceAllUsesWith(fused.getLogitsGrad());
      convert->erase();
    }
  } else {
    grad.getResult().replaceAllUsesWith(fused.getLogitsGrad());
  }
  Value widened = grad.getLogits();
  loss.erase();
  grad.erase();
  eraseIfUnread(widened);
}

struct FuseCrossEntropyPass : mt::impl::FuseCrossEntropyPassBase<FuseCrossEntropyPass> {
  void runOnOperation() override {
    DominanceInfo dominance(getOperation());
    SmallVector<CrossEntropyGradOp> grads;
    getOperation().walk([&](CrossEntropyGradOp grad) { grads.push_back(grad); });
    for (CrossEntropyGradOp grad : grads)
      if (CrossEntropyOp loss = lossOf(grad, dominance))
        fuse(loss, grad);
    // A loss without its gradient (an evaluation) still reads 16-bit
    // logits as they are.
    getOperation().walk([&](CrossEntropyOp loss) {
      Value logits = unwidened(loss.getLogits());
      if (logits == loss.getLogits())
        return;
      Value widened = loss.getLogits();
      loss.getLogitsMutable().assign(logits);
      eraseIfUnread(widened);
    });
  }
};

} // namespace
