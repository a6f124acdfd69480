//===- MapToGPU.cpp - loop nests of a bufferized function as device work ---===//
#include "mt/Conversion/Passes.h"

#include "ColumnReductions.h"
#include "Placement.h"
#include "SiblingKernels.h"
#include "VectorizeElementwise.h"
#include "WarpRows.h"
#include "WarpSums.h"
#include "WarpTasks.h"
#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Analysis/ModelInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {
#define GEN_PASS_DEF_MAPTOGPUPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// The buffer whose start `v`'s layout offset counts from: through
/// subviews, reshapes and casts, which keep it.
Value layoutBase(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// A copy between two views of the same elements (a piece bufferization
/// wrote in place, then "inserted" where it already is): static layouts,
/// equal, over the same buffer.
bool copiesOntoItself(memref::CopyOp copy) {
  auto from = cast<MemRefType>(copy.getSource().getType());
  auto to = cast<MemRefType>(copy.getTarget().getType());
  SmallVector<int64_t> fromStrides, toStrides;
  int64_t fromOffset, toOffset;
  if (from.getShape() != to.getShape() || !from.hasStaticShape() ||
      failed(from.getStridesAndOffset(fromStrides, fromOffset)) ||
      failed(to.getStridesAndOffset(toStrides, toOffset)) || fromStrides != toStrides ||
      fromOffset != toOffset || ShapedType::isDynamic(fromOffset) ||
      llvm::any_of(fromStrides, ShapedType::isDynamic))
    return false;
  return layoutBase(copy.getSource()) == layoutBase(copy.getTarget());
}

/// Each memref.copy of `fn` as a linalg.copy (mapped like any linalg op),
/// a copy onto itself dropped.
void copiesAsLinalg(IRRewriter &rewriter, func::FuncOp fn) {
  for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
    auto copy = dyn_cast<memref::CopyOp>(op);
    if (!copy)
      continue;
    if (!copiesOntoItself(copy)) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
    }
    rewriter.eraseOp(copy);
  }
}

/// Whether `v` is `buffer` handed through nested loops that carry it.
bool isCarried(Value v, Value buffer) {
  while (v != buffer) {
    auto inner = v.getDefiningOp<scf::ForOp>();
    if (!inner)
      return false;
    unsigned i = cast<OpResult>(v).getResultNumber();
    auto yield = cast<scf::YieldOp>(inner.getBody()->getTerminator());
    if (!isCarried(yield.getOperand(i), inner.getRegionIterArgs()[i]))
      return false;
    v = inner.getInitArgs()[i];
  }
  return true;
}

/// A row loop after bufferization carries its output buffers unchanged
/// (each iteration stores into its row, perhaps through inner loops that
/// carry them too): its iterations can run at once.
bool carriesBuffersUnchanged(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, next] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands()))
    if (!isa<MemRefType>(arg.getType()) || !isCarried(next, arg))
      return false;
  return true;
}

/// The scf.parallel that runs `loop`'s iterations at once.
scf::ParallelOp toParallel(IRRewriter &rewriter, scf::ForOp loop) {
  rewriter.setInsertionPoint(loop);
  auto parallel =
      scf::ParallelOp::create(rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()},
                              ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  Block *body = parallel.getBody();
  rewriter.eraseOp(body->getTerminator());
  SmallVector<Value> replacements{body->getArgument(0)};
  llvm::append_range(replacements, loop.getInitArgs());
  Block *old = loop.getBody();
  rewriter.eraseOp(old->getTerminator());
  rewriter.mergeBlocks(old, body, replacements);
  rewriter.setInsertionPointToEnd(body);
  scf::ReduceOp::create(rewriter, loop.getLoc());
  rewriter.replaceOp(loop, loop.getInitArgs());
  return parallel;
}

bool callsTheHost(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<func::CallOp, gpu::LaunchOp>(inner) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

/// One dimension, tiled by `blockSize`, mapped: tiles to blocks, elements
/// of a tile to threads.
void mapToBlocksAndThreads(IRRewriter &rewriter, scf::ParallelOp loop, int64_t blockSize) {
  if (loop.getNumLoops() > 1) {
    std::vector<unsigned> all;
    for (unsigned d = 0; d < loop.getNumLoops(); ++d)
      all.push_back(d);
    // The collapsed loop replaces `loop`, after the index arithmetic it
    // adds: the first scf.parallel after where `loop` was.
    Operation *before = loop->getPrevNode();
    Block *block = loop->getBlock();
    collapseParallelLoops(rewriter, loop, {all});
    Operation *at = before ? before->getNextNode() : &block->front();
    while (!isa<scf::ParallelOp>(at))
      at = at->getNextNode();
    loop = cast<scf::ParallelOp>(at);
  }
  auto [outer, inner] = scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/true);
  MLIRContext *ctx = rewriter.getContext();
  auto map = [&](scf::ParallelOp p, gpu::Processor processor) {
    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    (void)gpu::setMappingAttr(
        p, {gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity, identity)});
  };
  map(outer, gpu::Processor::BlockX);
  map(inner, gpu::Processor::ThreadX);
}

/// Code written for one lane (a warp task) must run on a warp, never on
/// one thread: an mt.lane_id left means its loop was not mapped.
LogicalResult allWarpTasksMapped(func::FuncOp fn) {
  WalkResult unmapped = fn.walk([](mt::LaneIdOp op) {
    op.emitError("mt-map-to-gpu: a warp-task kernel could not be mapped to warps");
    return WalkResult::interrupt();
  });
  return failure(unmapped.wasInterrupted());
}

struct MapToGPUPass : mt::impl::MapToGPUPassBase<MapToGPUPass> {
  using Base::Base;

  /// Column sums as vector kernels, appended to `parallel`.
  void reduceColumns(IRRewriter &rewriter, func::FuncOp fn,
                     SmallVectorImpl<scf::ParallelOp> &parallel) {
    // (Reductions only: the elementwise ops folded in are erased.)
    SmallVector<linalg::GenericOp> generics;
    for (auto generic : fn.getBody().front().getOps<linalg::GenericOp>())
      if (generic.getNumReductionLoops() > 0)
        generics.push_back(generic);
    for (linalg::GenericOp generic : generics)
      if (scf::ParallelOp p = mt::reduceColumnsOnVectors(rewriter, generic, vectorBytes))
        parallel.push_back(p);
  }

  void runOnOperation() override {
    if (blockSize < 1) {
      getOperation().emitError("mt-map-to-gpu: block-size must be >= 1");
      return signalPassFailure();
    }
    if (vectorBytes < 0 || (vectorBytes & (vectorBytes - 1))) {
      getOperation().emitError("mt-map-to-gpu: vector-bytes must be 0 or a power of two");
      return signalPassFailure();
    }
    if (warpRowsPerBlock < 0 || warpRowsPerBlock * mt::kWarpSize > 1024) {
      getOperation().emitError("mt-map-to-gpu: warp-rows-per-block must be 0 to 32 (at most 1024 "
                               "threads per block)");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      SmallVector<scf::ParallelOp> parallel;
      copiesAsLinalg(rewriter, fn);
      // Column sums first: each takes the fill before it and the
      // elementwise ops after it into its kernel.
      if (columnReductions)
        reduceColumns(rewriter, fn, parallel);
      // Whole-buffer sums next, with the fills before them.
      if (warpRowsPerBlock > 0)
        mt::sumsOnWarps(rewriter, fn);
      for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
          if (!linalgOp.hasPureBufferSemantics()) {
            op.emitError("mt-map-to-gpu: run it on bufferized IR");
            return signalPassFailure();
          }
          rewriter.setInsertionPoint(&op);
          // A copy or transpose (split and merge of attention heads, a
          // concat's pieces) is an elementwise generic whose body yields
          // its input: it gets the same vector chunks.
          if (isa<linalg::CopyOp, linalg::TransposeOp>(op) && vectorBytes > 0) {
            FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rewriter, linalgOp);
            if (succeeded(generic))
              linalgOp = *generic;
          }
          if (auto generic = dyn_cast<linalg::GenericOp>(linalgOp.getOperation()))
            if (scf::ParallelOp chunks = mt::vectorizeElementwise(rewriter, generic, vectorBytes)) {
              parallel.push_back(chunks);
              continue;
            }
          // Parallel dimensions first (a bias gradient sums over rows before
          // its columns): each output element still sums in the same order,
          // but the columns run on threads instead of all on one.
          if (auto generic = dyn_cast<linalg::GenericOp>(linalgOp.getOperation())) {
            auto iterators = generic.getIteratorTypesArray();
            SmallVector<unsigned> order;
            for (unsigned d = 0; d < iterators.size(); ++d)
              if (iterators[d] == utils::IteratorType::parallel)
                order.push_back(d);
            for (unsigned d = 0; d < iterators.size(); ++d)
              if (iterators[d] != utils::IteratorType::parallel)
                order.push_back(d);
            if (!order.empty() && !llvm::is_sorted(order)) {
              FailureOr<linalg::GenericOp> swapped =
                  linalg::interchangeGenericOp(rewriter, generic, order);
              if (succeeded(swapped))
                linalgOp = cast<linalg::LinalgOp>(swapped->getOperation());
            }
          }
          FailureOr<linalg::LinalgLoops> loops =
              linalg::linalgOpToParallelLoops(rewriter, linalgOp);
          if (failed(loops)) {
            linalgOp->emitError("mt-map-to-gpu: cannot turn this op into loops");
            return signalPassFailure();
          }
          rewriter.eraseOp(linalgOp);
          if (loops->empty())
            continue;
          if (auto p = dyn_cast<scf::ParallelOp>(loops->front()))
            parallel.push_back(p);
          else // only reductions: one sum, in order
            mt::launchSingleThread(rewriter, loops->front());
          continue;
        }
        auto loop = dyn_cast<scf::ForOp>(op);
        if (!loop || callsTheHost(loop))
          continue;
        // A loop whose results are values, not the buffers it wrote into,
        // is placed with what uses them (placeOnDevice).
        if (!carriesBuffersUnchanged(loop))
          continue;
        if (loop->hasAttr(mt::kWarpTasksAttrName)) {
          if (failed(mt::mapWarpTasks(rewriter, loop)))
            return signalPassFailure();
          continue;
        }
        if (loop->hasAttr(mt::kIndependentIterationsAttrName)) {
          if (warpRowsPerBlock > 0 &&
              mt::mapRowsToWarps(rewriter, loop, warpRowsPerBlock, vectorBytes,
                                 rowRegisters))
            continue;
          parallel.push_back(toParallel(rewriter, loop));
          continue;
        }
        rewriter.replaceAllUsesWith(loop.getResults(), loop.getInitArgs());
        mt::launchSingleThread(rewriter, loop);
      }
      if (failed(allWarpTasksMapped(fn)) || failed(mt::placeOnDevice(fn, rewriter)))
        return signalPassFailure();
      if (siblingKernels)
        mt::mergeSiblingKernels(rewriter, parallel);
      for (scf::ParallelOp p : parallel)
        mapToBlocksAndThreads(rewriter, p, blockSize);
    }
  }
};

} // namespace
