//===- RecomputeActivations.cpp - recompute instead of keeping -------------===//
//
// A forward value the backward reads is kept from the forward to the
// backward. Recomputing it in the backward, from what the op read, trades
// work for memory. Under sequence parallelism the input of each
// column-parallel linear is all-gathered from sequence pieces; keeping the
// gathered tensor costs t times the piece. Megatron gathers again in the
// backward instead, so only the piece is kept (Korthikanti et al. 2022).
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace mt {
#define GEN_PASS_DEF_RECOMPUTEACTIVATIONSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

/// Clones `op` before its first backward user and points every backward
/// user at the clone; the forward result then dies in the forward.
void recomputeInBackward(Operation *op) {
  Operation *first = nullptr;
  for (Value r : op->getResults())
    for (Operation *user : r.getUsers())
      if (isBackward(user) && (!first || user->isBeforeInBlock(first)))
        first = user;
  if (!first)
    return;
  OpBuilder b(first);
  Operation *copy = b.clone(*op);
  copy->setAttr(kBackwardAttrName, b.getUnitAttr());
  for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
    from.replaceUsesWithIf(to, [](OpOperand &use) { return isBackward(use.getOwner()); });
}

struct RecomputeActivationsPass
    : mt::impl::RecomputeActivationsPassBase<RecomputeActivationsPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kGradientOfAttrName) || fn.isExternal())
        continue;
      SmallVector<Operation *> chosen;
      for (Operation &op : fn.getBody().front())
        if (!isBackward(&op) && allGathers && isa<AllGatherOp>(op))
          chosen.push_back(&op);
      for (Operation *op : chosen)
        recomputeInBackward(op);
    }
  }
};

} // namespace
