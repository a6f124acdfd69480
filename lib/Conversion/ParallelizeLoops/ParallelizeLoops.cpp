//===- ParallelizeLoops.cpp - task loops become scf.parallel (CPU) --------===//
//
// OpenBLAS spreads each large GEMM over the cores; the loops the compiler
// generates run on the calling thread. A loop marked mt.parallel_tasks (the
// tiled fused attention's loop over heads) has iterations that write
// disjoint elements and are each large, so it becomes an scf.parallel and
// async-parallel-for hands its iterations to the async runtime's workers.
// Fine-grained loops (elementwise maps, a norm's rows) stay as they are:
// measured on this project's 2-core machine, dispatching them cost what
// the second core gained.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {
#define GEN_PASS_DEF_PARALLELIZELOOPSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

bool carriedInPlace(scf::ForOp loop);

/// Whether `v` is the buffer `arg`: itself, or what a nested loop that
/// carries it in place returns for it.
bool isBuffer(Value v, Value arg) {
  if (v == arg)
    return true;
  auto result = dyn_cast<OpResult>(v);
  auto inner = result ? dyn_cast<scf::ForOp>(result.getOwner()) : scf::ForOp();
  return inner && carriedInPlace(inner) &&
         isBuffer(inner.getInitArgs()[result.getResultNumber()], arg);
}

/// Whether every buffer `loop` carries comes back unchanged: the loop
/// writes into them in place.
bool carriedInPlace(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands()))
    if (!isa<MemRefType>(arg.getType()) || !isBuffer(yielded, arg))
      return false;
  return true;
}

/// A task loop that writes its buffers in place: each iteration its own
/// parts of them.
bool isTaskLoop(scf::ForOp loop) {
  return loop->hasAttr(mt::kParallelTasksAttrName) && carriedInPlace(loop);
}

void makeParallel(scf::ForOp loop, RewriterBase &rewriter) {
  rewriter.setInsertionPoint(loop);
  IRMapping map;
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    map.map(arg, init);
  scf::ParallelOp::create(rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()},
                          ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()},
                          [&](OpBuilder &b, Location, ValueRange ivs) {
                            map.map(loop.getInductionVar(), ivs.front());
                            for (Operation &op : loop.getBody()->without_terminator())
                              b.clone(op, map);
                          });
  rewriter.replaceOp(loop, loop.getInitArgs());
}

struct ParallelizeLoopsPass : mt::impl::ParallelizeLoopsPassBase<ParallelizeLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isTaskLoop(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      // A task loop inside another parallel loop stays sequential: one
      // level of tasks fills the workers.
      if (loop->getParentOfType<scf::ParallelOp>())
        continue;
      makeParallel(loop, rewriter);
    }
  }
};

} // namespace
