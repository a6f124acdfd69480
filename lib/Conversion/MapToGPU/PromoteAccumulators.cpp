//===- PromoteAccumulators.cpp - a reduction's output in a register -------===//
#include "PromoteAccumulators.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

namespace mt {
namespace {

/// The one element of `loop`'s body that is read and written at indices
/// defined outside the loop: its store (at the body's top level, after its
/// loads) and loads. Null when there is none or the buffer is touched
/// otherwise.
struct Accumulator {
  memref::StoreOp store;
  SmallVector<memref::LoadOp> loads;
};

/// The same value, or the same pure computation of the same operands (each
/// access of a lowered linalg op computes its own affine.apply).
bool sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  return x && y && isPure(x) &&
         OperationEquivalence::isEquivalentTo(x, y, OperationEquivalence::IgnoreLocations);
}

bool sameIndices(ValueRange a, ValueRange b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return sameIndex(std::get<0>(pair), std::get<1>(pair));
         });
}

std::optional<Accumulator> accumulatorOf(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store)
      continue;
    Value buffer = store.getMemRef();
    if (!loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(store.getIndices(), [&](Value i) { return loop.isDefinedOutsideOfLoop(i); }))
      continue;
    Accumulator acc{store, {}};
    bool clean = true;
    // Every other use of the buffer inside the loop is a load at the same
    // indices, in the body itself, before the store.
    for (Operation *user : buffer.getUsers()) {
      if (!loop->isAncestor(user) || user == store)
        continue;
      auto load = dyn_cast<memref::LoadOp>(user);
      if (!load || load->getBlock() != body || !load->isBeforeInBlock(store) ||
          !sameIndices(load.getIndices(), store.getIndices())) {
        clean = false;
        break;
      }
      acc.loads.push_back(load);
    }
    // Views of the same memory (a subview, a cast) would be other names for it.
    for (Operation &inner : body->without_terminator())
      if (&inner != store && !isa<memref::LoadOp>(inner) &&
          llvm::is_contained(inner.getOperands(), buffer))
        clean = false;
    if (clean && !acc.loads.empty())
      return acc;
  }
  return std::nullopt;
}

void promote(IRRewriter &rewriter, scf::ForOp loop, Accumulator &acc) {
  Location loc = loop.getLoc();
  Value buffer = acc.store.getMemRef();
  SmallVector<Value> indices(acc.store.getIndices());
  rewriter.setInsertionPoint(loop);
  Value initial = memref::LoadOp::create(rewriter, loc, buffer, indices);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{acc.store.getValueToStore()};
      });
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  BlockArgument carried = newLoop.getRegionIterArgs().back();
  for (memref::LoadOp load : acc.loads)
    rewriter.replaceOp(load, carried);
  rewriter.eraseOp(acc.store);
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, loc, newLoop.getResults().back(), buffer, indices);
}

} // namespace

void promoteAccumulators(IRRewriter &rewriter, Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); }); // inner loops first
  // The output's indices depend only on the parallel loops: hoisted, they
  // are defined outside the reduction loops.
  for (scf::ForOp loop : loops)
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  // One element per loop: a reduction's output (promote replaces the loop).
  for (scf::ForOp loop : loops)
    if (std::optional<Accumulator> acc = accumulatorOf(loop))
      promote(rewriter, loop, *acc);
}

} // namespace mt
