//===- DeferGradientReductions.cpp - sum partial gradients once per step ---===//
//
// Under sequence parallelism every rank computes its part of the gradient of
// a replicated parameter (a norm's scale, a row-parallel bias) from its own
// sequence piece, and the VJP of mt.vary sums the parts with an all-reduce,
// once per micro-batch. Gradient accumulation is a sum too, so the reduction
// commutes with it: a parameter gradient that is only ever built from such
// all-reduces by rank-local linear ops (add, stack_layers, the scatter of a
// position-embedding gradient) can be returned as this rank's partial sum,
// and the runtime all-reduces the accumulated gradient once per step, as
// Megatron does for its sequence-parallel parameters.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

namespace mt {
#define GEN_PASS_DEF_DEFERGRADIENTREDUCTIONSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Collects the sum all-reduces over `axes` that `v` is built from through
/// single-use, rank-local linear ops; false when anything else contributes.
bool partialLeaves(Value v, ArrayAttr &axes, SmallVectorImpl<AllReduceOp> &leaves) {
  if (!v.hasOneUse())
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto r = dyn_cast<AllReduceOp>(def)) {
    if (r.getReduction() != ReductionKind::sum || (axes && axes != r.getAxesAttr()))
      return false;
    axes = r.getAxesAttr();
    leaves.push_back(r);
    return true;
  }
  if (isa<AddOp, StackLayersOp, PositionEmbeddingGradOp>(def))
    return llvm::all_of(def->getOperands(),
                        [&](Value operand) { return partialLeaves(operand, axes, leaves); });
  return false;
}

struct DeferGradientReductionsPass
    : mt::impl::DeferGradientReductionsPassBase<DeferGradientReductionsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kGradientOfAttrName) || fn.isExternal())
        continue;
      auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
      for (unsigned i = 0; i < fn.getNumResults(); ++i) {
        if (!fn.getResultAttr(i, kGradOfAttrName))
          continue;
        ArrayAttr axes;
        SmallVector<AllReduceOp> leaves;
        if (!partialLeaves(ret.getOperand(i), axes, leaves))
          continue;
        for (AllReduceOp r : leaves) {
          r.getResult().replaceAllUsesWith(r.getInput());
          r.erase();
        }
        fn.setResultAttr(i, kPartialOverAttrName, axes);
      }
    }
  }
};

} // namespace
