//===- WarpTasks.cpp - a loop of per-lane warp tasks on warps --------------===//
//
// The tensor-core kernels are written for one lane of one warp by the
// lowering (LowerMmaAttention.cpp): all the restructuring is done there, so
// mapping them is only putting each task on a warp, and stating the
// alignment of the lanes' group loads.
//
//===----------------------------------------------------------------------===//
#include "WarpTasks.h"

#include "VectorizeElementwise.h"
#include "WarpRows.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;

namespace {

/// A number every value `v` takes is a multiple of, from constants, sums,
/// products and minima (enough for a lane's group start: a tile's first
/// column plus the lane's multiple of the width, clamped to a multiple).
int64_t knownMultiple(Value v, int depth = 0) {
  constexpr int64_t kAny = int64_t(1) << 30;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c == 0 ? kAny : std::min(kAny, std::abs(*c));
  Operation *op = v.getDefiningOp();
  if (!op || depth > 16)
    return 1;
  auto of = [&](unsigned i) { return knownMultiple(op->getOperand(i), depth + 1); };
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinUIOp, arith::MinSIOp, arith::MaxUIOp,
          arith::MaxSIOp>(op))
    return std::gcd(of(0), of(1));
  if (isa<arith::MulIOp>(op))
    return std::min(kAny, of(0) * of(1));
  if (isa<arith::SelectOp>(op))
    return std::gcd(of(1), of(2));
  return 1;
}

/// The lanes' group reads (MmaAttentionTiles.h: a run of 4 or 8 elements
/// along the last dimension) as vector.load aligned to their size, where
/// the buffer's layout and the start prove it: NVPTX makes one 8- or
/// 16-byte load only of an access whose alignment is stated. Others stay
/// transfer reads (correct, loaded element by element).
void alignGroupLoads(IRRewriter &rewriter, Operation *kernel) {
  SmallVector<vector::TransferReadOp> reads;
  kernel->walk([&](vector::TransferReadOp read) { reads.push_back(read); });
  for (vector::TransferReadOp read : reads) {
    VectorType type = read.getVectorType();
    if (!isa<MemRefType>(read.getBase().getType()) || type.getRank() != 1 || read.getMask() ||
        !read.getPermutationMap().isMinorIdentity() || !read.getInBoundsValues().front())
      continue;
    int64_t width = type.getNumElements();
    if (!mt::chunksAligned(read.getBase(), width) ||
        knownMultiple(read.getIndices().back()) % width)
      continue;
    rewriter.setInsertionPoint(read);
    rewriter.replaceOp(read, vector::LoadOp::create(
                                 rewriter, read.getLoc(), type, read.getBase(), read.getIndices(),
                                 /*nontemporal=*/false,
                                 mt::vectorAlignment(type.getElementType(), width)));
  }
}

} // namespace

LogicalResult mt::mapWarpTasks(IRRewriter &rewriter, scf::ForOp taskLoop) {
  auto warps = taskLoop->getAttrOfType<IntegerAttr>(kWarpTasksAttrName);
  int64_t warpsPerBlock = warps ? warps.getInt() : 0;
  auto lower = taskLoop.getLowerBound().getDefiningOp<arith::ConstantIndexOp>();
  auto step = taskLoop.getStep().getDefiningOp<arith::ConstantIndexOp>();
  auto upper = taskLoop.getUpperBound().getDefiningOp<arith::ConstantIndexOp>();
  if (!lower || !step || !upper || lower.value() != 0 || step.value() != 1 || warpsPerBlock < 1 ||
      warpsPerBlock * kWarpSize > 1024)
    return taskLoop.emitError("mt-map-to-gpu: a warp-task kernel could not be mapped to warps "
                              "(its loop must run from 0 by 1 to a constant, 1 to 32 warps a "
                              "block)");
  int64_t tasks = upper.value();
  Location loc = taskLoop.getLoc();
  rewriter.setInsertionPoint(taskLoop);
  auto [blocks, lanes] = buildWarpLoops(rewriter, loc, upper, warpsPerBlock);
  Block *laneBody = lanes.getBody();
  rewriter.setInsertionPointToStart(laneBody);
  Value task = arith::AddIOp::create(rewriter, loc, blocks.getInductionVars()[0],
                                     lanes.getInductionVars()[0]);
  Value lane = lanes.getInductionVars()[1];
  Operation *before = laneBody->getTerminator();
  if (tasks % warpsPerBlock) {
    // The last block's spare warps skip, whole warps at a time.
    Value inside = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, task, upper);
    before = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false)
                 .thenBlock()
                 ->getTerminator();
  }
  SmallVector<Value> args{task};
  llvm::append_range(args, taskLoop.getInitArgs());
  rewriter.eraseOp(taskLoop.getBody()->getTerminator());
  rewriter.inlineBlockBefore(taskLoop.getBody(), before, args);
  rewriter.replaceOp(taskLoop, taskLoop.getInitArgs());
  SmallVector<LaneIdOp> laneIds;
  blocks.walk([&](LaneIdOp op) { laneIds.push_back(op); });
  for (LaneIdOp op : laneIds)
    rewriter.replaceOp(op, lane);
  alignGroupLoads(rewriter, blocks);
  return success();
}
