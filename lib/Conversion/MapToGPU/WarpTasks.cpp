//===- WarpTasks.cpp - a loop of per-lane warp tasks on warps --------------===//
//
// The tensor-core kernels are written for one lane of one warp by the
// lowering (LowerMmaAttention.cpp): all the restructuring is done there, so
// mapping them is only putting each task on a warp.
//
//===----------------------------------------------------------------------===//
#include "WarpTasks.h"

#include "WarpRows.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

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
  return success();
}
