//===- OverlapCollectives.cpp - collectives in flight beside compute ------===//
//
// Tensor parallelism's backward is Megatron's overlap opportunity: a
// column-parallel linear gathers its input again for the weight gradient
// (sequence parallelism) while the input gradient's GEMM needs no gathered
// value, and the input gradient's reduce-scatter (or all-reduce) has
// nothing to do with the weight gradient's GEMM. Each all-reduce, all-gather
// and reduce-scatter is split into a start (the op,
// moved up over at most one matmul it does not depend on) and an
// mt.collective_wait right before its result's first use; the runtime
// moves the data on a thread of its own in between.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_OVERLAPCOLLECTIVESPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Ops whose order the runtime sees: nothing moves across them.
bool isOrdered(Operation *op) {
  return isa<CollectiveOpInterface, CollectiveWaitOp, GradientReadyOp, func::CallOp>(op) ||
         op->getNumRegions() > 0;
}

/// The layer group an op is outlined with (mt-outline-layers): a start and
/// its wait stay in one.
std::pair<Attribute, bool> groupOf(Operation *op) {
  return {op->getAttr(kLayerAttrName), op->hasAttr(kBackwardAttrName)};
}

/// Where the collective can start: above the nearest matmul before it of
/// its group that it does not depend on (one GEMM to hide behind; going
/// further would hold the gathered buffer longer for nothing more).
Operation *startPoint(Operation *collective) {
  Operation *input = collective->getOperand(0).getDefiningOp();
  for (Operation *op = collective->getPrevNode(); op; op = op->getPrevNode()) {
    if (op == input || isOrdered(op) || groupOf(op) != groupOf(collective))
      return nullptr;
    if (isa<MatmulOp>(op))
      return op;
  }
  return nullptr;
}

/// The op before which the result must be complete: its first reader, or
/// the first op the wait may not pass (another group, an ordered op).
Operation *waitPoint(Operation *collective) {
  Block *block = collective->getBlock();
  for (Operation *op = collective->getNextNode(); op; op = op->getNextNode()) {
    if (op->hasTrait<OpTrait::IsTerminator>() || groupOf(op) != groupOf(collective) ||
        (isOrdered(op) && !isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op)))
      return op;
    for (Operation *user : collective->getResult(0).getUsers())
      if (block->findAncestorOpInBlock(*user) == op)
        return op;
  }
  return nullptr;
}

struct OverlapCollectivesPass : mt::impl::OverlapCollectivesPassBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      SmallVector<Operation *> collectives;
      for (Operation &op : fn.getBody().front())
        if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op))
          collectives.push_back(&op);
      for (Operation *c : collectives) {
        if (Operation *before = startPoint(c))
          c->moveBefore(before);
        Operation *wait = waitPoint(c);
        // Nothing to hide behind: leave it a plain collective.
        if (!wait || wait == c->getNextNode())
          continue;
        bool compute = false;
        for (Operation *op = c->getNextNode(); op != wait; op = op->getNextNode())
          compute |= !isOrdered(op);
        if (!compute)
          continue;
        OpBuilder builder(wait);
        Value pending = c->getResult(0);
        auto done = CollectiveWaitOp::create(builder, c->getLoc(), pending.getType(), pending);
        for (NamedAttribute a : c->getDiscardableAttrs())
          if (a.getName() == kLayerAttrName || a.getName() == kBackwardAttrName)
            done->setAttr(a.getName(), a.getValue());
        pending.replaceAllUsesExcept(done.getResult(), done);
      }
    }
  }
};

} // namespace
