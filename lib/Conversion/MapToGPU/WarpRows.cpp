//===- WarpRows.cpp - a row kernel's rows on warps, its columns on lanes ---===//
//
// One thread per row reads a row's elements one after another while its
// neighbours read other rows: every load of a warp touches 32 rows, and a
// softmax over 1024 columns or a loss over 50k classes runs on too few
// threads. A warp per row instead has lane l take columns l, l + 32, ...:
// neighbouring lanes load neighbouring elements, and what the row loop sums
// or maximizes is combined across the warp by shuffles.
//
//===----------------------------------------------------------------------===//
#include "WarpRows.h"

#include "RowRegisters.h"

#include "VectorizeRows.h"

#include "mt/Analysis/ModelInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <optional>

using namespace mlir;

namespace mt {
namespace {

/// The buffer `v` views: through view-like ops and the iter_args of loops
/// that carry it.
Value rootOf(Value v) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        return v;
      v = loop.getInitArgs()[arg.getArgNumber() - 1];
      continue;
    }
    if (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
      v = view.getViewSource();
      continue;
    }
    return v;
  }
}

/// How an along-row loop combines a carried scalar, if it is a sum or a
/// maximum that starts from its identity and is used for nothing else.
std::optional<gpu::AllReduceOperation> combineKind(scf::ForOp loop, unsigned i) {
  BlockArgument acc = loop.getRegionIterArgs()[i];
  if (!acc.hasOneUse())
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Operation *combine = yield.getOperand(i).getDefiningOp();
  if (!combine || *acc.getUsers().begin() != combine)
    return std::nullopt;
  auto init = loop.getInitArgs()[i].getDefiningOp<arith::ConstantOp>();
  auto value = init ? dyn_cast<FloatAttr>(init.getValue()) : FloatAttr();
  if (!value)
    return std::nullopt;
  if (isa<arith::AddFOp>(combine) && value.getValue().isZero())
    return gpu::AllReduceOperation::ADD;
  if (isa<arith::MaximumFOp>(combine) && value.getValue().isInfinity() &&
      value.getValue().isNegative())
    return gpu::AllReduceOperation::MAXIMUMF;
  return std::nullopt;
}

/// An along-row loop and how each scalar it carries is combined (null for
/// a buffer).
struct AlongRow {
  scf::ForOp loop;
  SmallVector<std::optional<gpu::AllReduceOperation>> kinds;
};

bool isConstantIndex(Value v, int64_t expected) {
  auto c = v.getDefiningOp<arith::ConstantIndexOp>();
  return c && c.value() == expected;
}

/// The along-row loops of `rowLoop`'s body, if the warp mapping keeps its
/// meaning (see mapRowsToWarps).
std::optional<SmallVector<AlongRow>> analyze(scf::ForOp rowLoop) {
  SmallVector<AlongRow> loops;
  Block *body = rowLoop.getBody();
  // Each along-row loop sits directly in the row body, starts at 0 and
  // steps by 1.
  bool nested = false;
  rowLoop.getBody()->walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kAlongRowAttrName))
      return;
    if (loop->getBlock() != body || !isConstantIndex(loop.getLowerBound(), 0) ||
        !isConstantIndex(loop.getStep(), 1)) {
      nested = true;
      return;
    }
    AlongRow a{loop, {}};
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      if (isa<MemRefType>(loop.getRegionIterArgs()[i].getType())) {
        a.kinds.push_back(std::nullopt);
        continue;
      }
      auto kind = combineKind(loop, i);
      if (!kind) {
        nested = true;
        return;
      }
      a.kinds.push_back(kind);
    }
    loops.push_back(a);
  });
  if (nested || loops.empty())
    return std::nullopt;
  // What the row writes, each lane only at its own columns (the last index
  // is the along-row loop's column); reads of it must be at the reader's own
  // column too, else a lane would read another lane's element.
  auto enclosingAlongRow = [&](Operation *op) -> scf::ForOp {
    for (const AlongRow &a : loops)
      if (a.loop->isAncestor(op))
        return a.loop;
    return nullptr;
  };
  auto atOwnColumn = [&](Operation *op, ValueRange indices) {
    scf::ForOp loop = enclosingAlongRow(op);
    return loop && !indices.empty() && indices.back() == loop.getInductionVar();
  };
  llvm::SmallPtrSet<Value, 8> written;
  bool ok = true;
  body->walk([&](memref::StoreOp store) {
    if (enclosingAlongRow(store) && !atOwnColumn(store, store.getIndices()))
      ok = false;
    written.insert(rootOf(store.getMemRef()));
  });
  body->walk([&](Operation *op) {
    if (isa<memref::StoreOp, memref::LoadOp, scf::YieldOp>(op) || op->getNumRegions() || !ok)
      return;
    // Any other writer (a copy, a call) is beyond this analysis.
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && !isa<ViewLikeOpInterface>(op))
        ok = false;
  });
  body->walk([&](memref::LoadOp load) {
    if (written.contains(rootOf(load.getMemRef())) && !atOwnColumn(load, load.getIndices()))
      ok = false;
  });
  if (!ok)
    return std::nullopt;
  return loops;
}

} // namespace

std::pair<scf::ParallelOp, scf::ParallelOp> buildWarpLoops(IRRewriter &rewriter, Location loc,
                                                           Value count, int64_t warpsPerBlock) {
  MLIRContext *ctx = rewriter.getContext();
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value zero = index(0), one = index(1), perBlock = index(warpsPerBlock), warp = index(kWarpSize);
  auto blocks = scf::ParallelOp::create(rewriter, loc, ValueRange{zero}, ValueRange{count},
                                        ValueRange{perBlock});
  rewriter.setInsertionPointToStart(blocks.getBody());
  auto lanes = scf::ParallelOp::create(rewriter, loc, ValueRange{zero, zero},
                                       ValueRange{perBlock, warp}, ValueRange{one, one});
  auto map = [&](scf::ParallelOp p, ArrayRef<gpu::Processor> processors) {
    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<gpu::ParallelLoopDimMappingAttr> attrs;
    for (gpu::Processor processor : processors)
      attrs.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity, identity));
    (void)gpu::setMappingAttr(p, attrs);
  };
  map(blocks, {gpu::Processor::BlockX});
  map(lanes, {gpu::Processor::ThreadY, gpu::Processor::ThreadX});
  rewriter.setInsertionPointToStart(lanes.getBody());
  return {blocks, lanes};
}

bool mapRowsToWarps(IRRewriter &rewriter, scf::ForOp rowLoop, int64_t rowsPerBlock,
                    int64_t vectorBytes, int64_t rowRegisterChunks) {
  if (!isConstantIndex(rowLoop.getLowerBound(), 0) || !isConstantIndex(rowLoop.getStep(), 1))
    return false;
  auto upper = rowLoop.getUpperBound().getDefiningOp<arith::ConstantIndexOp>();
  if (!upper)
    return false;
  std::optional<SmallVector<AlongRow>> loops = analyze(rowLoop);
  if (!loops)
    return false;
  int64_t rows = upper.value();
  Location loc = rowLoop.getLoc();
  rewriter.setInsertionPoint(rowLoop);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  // Blocks of `rowsPerBlock` rows; in a block, a row per warp and a column
  // per lane.
  Value warp = index(kWarpSize);
  auto [blocks, lanes] = buildWarpLoops(rewriter, loc, upper, rowsPerBlock);

  Block *laneBody = lanes.getBody();
  rewriter.setInsertionPointToStart(laneBody);
  Value row = arith::AddIOp::create(rewriter, loc, blocks.getInductionVars()[0],
                                    lanes.getInductionVars()[0]);
  Value lane = lanes.getInductionVars()[1];
  Operation *before = laneBody->getTerminator();
  if (rows % rowsPerBlock) {
    // The last block's spare warps skip (whole warps, so the shuffles of
    // the others still see every lane).
    Value inside = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, row, upper);
    auto guard = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
    before = guard.thenBlock()->getTerminator();
  }
  SmallVector<Value> args{row};
  llvm::append_range(args, rowLoop.getInitArgs());
  rewriter.eraseOp(rowLoop.getBody()->getTerminator());
  rewriter.inlineBlockBefore(rowLoop.getBody(), before, args);
  rewriter.replaceOp(rowLoop, rowLoop.getInitArgs());

  for (AlongRow &a : *loops) {
    // The lane's partial results: a chunk of 16 bytes at a time where the
    // loop allows it, else an element at a time.
    SmallVector<Value> partials;
    if (auto vectorized =
            vectorizeAlongRow(rewriter, a.loop, lane, kWarpSize, a.kinds, vectorBytes)) {
      partials = *vectorized;
    } else {
      rewriter.modifyOpInPlace(a.loop, [&] {
        a.loop.getLowerBoundMutable().assign(lane);
        a.loop.getStepMutable().assign(warp);
      });
      partials.assign(a.loop.getResults().begin(), a.loop.getResults().end());
    }
    for (auto [i, kind] : llvm::enumerate(a.kinds)) {
      if (!kind)
        continue;
      Value partial = partials[i];
      rewriter.setInsertionPointAfterValue(partial);
      auto total = gpu::SubgroupReduceOp::create(rewriter, loc, partial, *kind, /*uniform=*/true,
                                                 /*cluster_size=*/IntegerAttr());
      rewriter.replaceAllUsesExcept(partial, total, total);
    }
  }
  if (rowRegisterChunks > 0)
    keepRowInRegisters(rewriter, before->getBlock(), lane, rowRegisterChunks);
  return true;
}

} // namespace mt
