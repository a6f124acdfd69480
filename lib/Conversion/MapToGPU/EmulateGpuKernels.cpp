//===- EmulateGpuKernels.cpp - mt-map-to-gpu's kernels run on the CPU -------===//
//
// Without a GPU, the kernels mt-map-to-gpu makes (elementwise chunks on
// vectors, rows on warps with shuffled sums, single-thread kernels) would be
// checked only for compiling. This pass makes them runnable on the CPU as
// they are: thread loops stay loops, single-thread kernels are inlined, and
// each warp's 32 lanes run one after another in phases cut at every warp
// reduction, which is computed as the GPU computes it (a butterfly: lane l
// combines its value with lane l ^ 1, then l ^ 2, ... l ^ 16, its own value
// first). Values a lane carries from one phase to the next wait in a
// 32-element buffer per value. So a plan compiled this way adds and rounds
// exactly as its CUDA kernels do, and training with it checks them.
//
//===----------------------------------------------------------------------===//
#include "WarpRows.h"

#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mt {
#define GEN_PASS_DEF_EMULATEGPUKERNELSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;
using mt::kWarpSize;

namespace {

/// A single-thread gpu.launch's body, inlined where the launch was.
void inlineLaunch(IRRewriter &rewriter, gpu::LaunchOp launch) {
  Block &body = launch.getBody().front();
  rewriter.setInsertionPoint(launch);
  Location loc = launch.getLoc();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // Ids are 0 and sizes 1: the launch is one thread (mt::launchSingleThread).
  gpu::KernelDim3 ids[] = {launch.getBlockIds(), launch.getThreadIds()};
  gpu::KernelDim3 sizes[] = {launch.getGridSize(), launch.getBlockSize()};
  for (gpu::KernelDim3 d : ids)
    for (Value v : {d.x, d.y, d.z})
      rewriter.replaceAllUsesWith(v, zero);
  for (gpu::KernelDim3 d : sizes)
    for (Value v : {d.x, d.y, d.z})
      rewriter.replaceAllUsesWith(v, one);
  rewriter.eraseOp(body.getTerminator());
  for (Operation &op : llvm::make_early_inc_range(body))
    op.moveBefore(launch);
  rewriter.eraseOp(launch);
}

bool containsWarpReduce(Operation *op) {
  return op->walk([](gpu::SubgroupReduceOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

/// One warp's lanes, one after another, in phases (see the file comment).
class WarpEmulator {
public:
  WarpEmulator(IRRewriter &rewriter, func::FuncOp fn, Value warpIv, Value laneIv, Value newWarpIv)
      : rewriter(rewriter), fn(fn), warpIv(warpIv), laneIv(laneIv), newWarpIv(newWarpIv) {}

  /// Emits `block`'s ops (all lanes) at the rewriter's insertion point.
  LogicalResult emulate(Block &block) {
    SmallVector<Operation *> phase;
    for (Operation &op : block.without_terminator()) {
      if (!containsWarpReduce(&op)) {
        phase.push_back(&op);
        continue;
      }
      if (failed(emitPhase(phase)))
        return failure();
      phase.clear();
      if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op)) {
        if (failed(emitReduction(reduce)))
          return failure();
        continue;
      }
      // A guard around a row (rows past the end): the same for every lane.
      auto guard = dyn_cast<scf::IfOp>(op);
      if (!guard || guard.getNumResults() != 0)
        return op.emitError("mt-emulate-gpu-kernels: a warp reduction inside control flow "
                            "other than a row's guard");
      FailureOr<Value> condition = uniform(guard.getCondition(), guard);
      if (failed(condition))
        return failure();
      auto copy = scf::IfOp::create(rewriter, op.getLoc(), *condition,
                                    /*withElseRegion=*/!guard.getElseRegion().empty());
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(copy.thenBlock()->getTerminator());
      if (failed(emulate(*guard.thenBlock())))
        return failure();
      if (!guard.getElseRegion().empty()) {
        rewriter.setInsertionPoint(copy.elseBlock()->getTerminator());
        if (failed(emulate(*guard.elseBlock())))
          return failure();
      }
    }
    return emitPhase(phase);
  }

private:
  IRRewriter &rewriter;
  func::FuncOp fn;
  Value warpIv, laneIv, newWarpIv;
  /// A value of an earlier phase: its copy inside that phase's lane loop
  /// (and that loop's lane), or its 32 lanes in a buffer.
  struct Earlier {
    Value copy, lane;
    Value lanes; // memref<32xT>, made when a later phase needs it
  };
  llvm::DenseMap<Value, Earlier> earlier;

  Value index(Location loc, int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); }

  /// A buffer of 32 elements of `type`, allocated on the stack at the
  /// function's start (each warp reuses it).
  Value laneBuffer(Location loc, Type type) {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&fn.getBody().front());
    return memref::AllocaOp::create(rewriter, loc, MemRefType::get({kWarpSize}, type));
  }

  /// `v`'s 32 lanes in a buffer (stored by its phase as it is computed).
  FailureOr<Value> lanesOf(Value v, Location loc) {
    auto it = earlier.find(v);
    if (it == earlier.end())
      return emitError(loc, "mt-emulate-gpu-kernels: a warp reduction of a value no lane computed");
    Earlier &e = it->second;
    if (!e.lanes) {
      if (!v.getType().isIntOrIndexOrFloat() && !isa<VectorType>(v.getType()))
        return emitError(loc) << "mt-emulate-gpu-kernels: cannot keep a lane's " << v.getType()
                              << " from one phase to the next";
      e.lanes = laneBuffer(loc, v.getType());
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointAfterValue(e.copy);
      memref::StoreOp::create(rewriter, loc, e.copy, e.lanes, e.lane);
    }
    return e.lanes;
  }

  /// The value every lane has for `v` (which must not depend on the lane),
  /// computed here.
  FailureOr<Value> uniform(Value v, Operation *guard) {
    if (v == warpIv)
      return newWarpIv;
    if (v == laneIv)
      return guard->emitError("mt-emulate-gpu-kernels: a lane-dependent row guard");
    Operation *def = v.getDefiningOp();
    if (!def || !laneIv.getParentRegion()->isAncestor(def->getParentRegion()))
      return v; // from outside the warp
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return guard->emitError("mt-emulate-gpu-kernels: a row guard that reads memory");
    IRMapping mapping;
    for (Value operand : def->getOperands()) {
      FailureOr<Value> u = uniform(operand, guard);
      if (failed(u))
        return failure();
      mapping.map(operand, *u);
    }
    return rewriter.clone(*def, mapping)->getResult(cast<OpResult>(v).getResultNumber());
  }

  /// Where a value defined in a loop that only passes a buffer through
  /// comes from.
  static Value passedBuffer(Value v) {
    while (auto result = dyn_cast<OpResult>(v)) {
      auto loop = dyn_cast<scf::ForOp>(result.getOwner());
      if (!loop)
        break;
      unsigned i = result.getResultNumber();
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      if (yield.getOperand(i) != loop.getRegionIterArgs()[i])
        break;
      v = loop.getInitArgs()[i];
    }
    return v;
  }

  /// `ops` for each lane: one loop over the 32 lanes.
  LogicalResult emitPhase(ArrayRef<Operation *> ops) {
    if (ops.empty())
      return success();
    Location loc = ops.front()->getLoc();
    auto lanes =
        scf::ForOp::create(rewriter, loc, index(loc, 0), index(loc, kWarpSize), index(loc, 1));
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPoint(lanes.getBody()->getTerminator());
    Value lane = lanes.getInductionVar();
    IRMapping mapping;
    mapping.map(laneIv, lane);
    mapping.map(warpIv, newWarpIv);
    for (Operation *op : ops) {
      // Operands from earlier phases: this lane's copy from their buffer.
      WalkResult walk = op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          if (mapping.contains(operand) || !earlier.count(operand))
            continue;
          if (isa<MemRefType>(operand.getType())) {
            Value source = passedBuffer(operand);
            if (earlier.count(source)) {
              inner->emitError("mt-emulate-gpu-kernels: a buffer made by a lane and used after "
                               "a warp reduction");
              return WalkResult::interrupt();
            }
            mapping.map(operand, source);
            continue;
          }
          FailureOr<Value> buffer = lanesOf(operand, inner->getLoc());
          if (failed(buffer))
            return WalkResult::interrupt();
          mapping.map(operand, memref::LoadOp::create(rewriter, inner->getLoc(), *buffer, lane));
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
      Operation *copy = rewriter.clone(*op, mapping);
      for (auto [old, now] : llvm::zip(op->getResults(), copy->getResults()))
        earlier[old] = Earlier{now, lane, Value()};
    }
    return success();
  }

  /// The GPU's butterfly over the lanes' values of `reduce`'s operand.
  LogicalResult emitReduction(gpu::SubgroupReduceOp reduce) {
    Location loc = reduce.getLoc();
    if (reduce.getClusterSize() || (reduce.getOp() != gpu::AllReduceOperation::ADD &&
                                    reduce.getOp() != gpu::AllReduceOperation::MAXIMUMF))
      return reduce.emitError("mt-emulate-gpu-kernels: only whole-warp sums and maxima");
    FailureOr<Value> current = lanesOf(reduce.getValue(), loc);
    if (failed(current))
      return failure();
    Type type = reduce.getType();
    for (int64_t offset = 1; offset < kWarpSize; offset *= 2) {
      Value next = laneBuffer(loc, type);
      auto lanes =
          scf::ForOp::create(rewriter, loc, index(loc, 0), index(loc, kWarpSize), index(loc, 1));
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(lanes.getBody()->getTerminator());
      Value lane = lanes.getInductionVar();
      Value partner = arith::XOrIOp::create(rewriter, loc, lane, index(loc, offset));
      Value own = memref::LoadOp::create(rewriter, loc, *current, lane);
      Value theirs = memref::LoadOp::create(rewriter, loc, *current, partner);
      Value combined = reduce.getOp() == gpu::AllReduceOperation::ADD
                           ? arith::AddFOp::create(rewriter, loc, own, theirs).getResult()
                           : arith::MaximumFOp::create(rewriter, loc, own, theirs).getResult();
      memref::StoreOp::create(rewriter, loc, combined, next, lane);
      current = next;
    }
    earlier[reduce.getResult()] = Earlier{Value(), Value(), *current};
    return success();
  }
};

/// The lanes of mapRowsToWarps' warps: an scf.parallel mapped to
/// (thread_y, thread_x) over (rows per block, 32).
bool isWarpLoop(scf::ParallelOp loop) {
  auto mapping = loop->getAttrOfType<ArrayAttr>(gpu::getMappingAttrName());
  if (!mapping || mapping.size() != 2 || loop.getNumLoops() != 2)
    return false;
  auto second = dyn_cast<gpu::ParallelLoopDimMappingAttr>(mapping[1]);
  auto upper = loop.getUpperBound()[1].getDefiningOp<arith::ConstantIndexOp>();
  return second && second.getProcessor() == gpu::Processor::ThreadX && upper &&
         upper.value() == kWarpSize;
}

struct EmulateGpuKernelsPass : mt::impl::EmulateGpuKernelsPassBase<EmulateGpuKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      SmallVector<gpu::LaunchOp> launches;
      fn.walk([&](gpu::LaunchOp l) { launches.push_back(l); });
      for (gpu::LaunchOp l : launches)
        inlineLaunch(rewriter, l);
      SmallVector<scf::ParallelOp> warps;
      fn.walk([&](scf::ParallelOp p) {
        if (isWarpLoop(p) && containsWarpReduce(p))
          warps.push_back(p);
      });
      for (scf::ParallelOp p : warps) {
        Location loc = p.getLoc();
        rewriter.setInsertionPoint(p);
        auto perWarp = scf::ForOp::create(rewriter, loc, p.getLowerBound()[0], p.getUpperBound()[0],
                                          p.getStep()[0]);
        rewriter.setInsertionPoint(perWarp.getBody()->getTerminator());
        WarpEmulator emulator(rewriter, fn, p.getInductionVars()[0], p.getInductionVars()[1],
                              perWarp.getInductionVar());
        if (failed(emulator.emulate(*p.getBody())))
          return signalPassFailure();
        rewriter.eraseOp(p);
      }
      WalkResult left = fn.walk([](Operation *op) {
        if (isa<gpu::GPUDialect>(op->getDialect())) {
          op->emitError("mt-emulate-gpu-kernels: cannot run this GPU op on the CPU");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (left.wasInterrupted())
        return signalPassFailure();
    }
  }
};

} // namespace
