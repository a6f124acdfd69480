//===- EmulateGpuKernels.cpp - mt-map-to-gpu's kernels run on the CPU -------===//
//
// Without a GPU, the kernels mt-map-to-gpu makes (elementwise chunks on
// vectors, rows on warps with shuffled sums, single-thread kernels) would be
// checked only for compiling. This pass makes them runnable on the CPU as
// they are: thread loops stay loops, single-thread kernels are inlined, and
// each warp's 32 lanes run one after another in phases cut at every warp
// collective. A reduction is computed as the GPU computes it (a butterfly:
// lane l combines its value with lane l ^ 1, then l ^ 2, ... up to half the
// warp or of the cluster, its own value first); a tensor-core product
// (mt.warp_mma) gathers each output element's row of A and column of B from
// the lanes holding them, by the op's fragment layout, and adds the products
// in ascending k. Values a lane carries from one phase to the next wait in a
// 32-element buffer per value. A warp loop holding a block barrier
// (gpu.barrier) runs all the block's warps together instead: the phases
// run over every thread of the block (a barrier is a phase cut with nothing
// to compute), buffers hold a value per thread, collectives act on each
// warp's 32 slots, and workgroup buffers (memref.alloca in workgroup
// memory, made for the block outside its threads) become host buffers. So
// a plan compiled this way adds and rounds exactly as its CUDA kernels do,
// and training with it checks them.
//
//===----------------------------------------------------------------------===//
#include "WarpRows.h"

#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// A warp reduction or tensor-core product: an op every lane must reach
/// together, which cuts the lanes' work into phases.
/// A block barrier is one too: every thread of the block reaches it.
bool isWarpCollective(Operation *op) {
  return isa<gpu::SubgroupReduceOp, mt::WarpMmaOp, gpu::BarrierOp>(op);
}

bool containsWarpCollective(Operation *op) {
  return op->walk([](Operation *inner) {
            return isWarpCollective(inner) ? WalkResult::interrupt() : WalkResult::advance();
          })
      .wasInterrupted();
}

/// One warp's lanes, one after another, in phases (see the file comment).
class WarpEmulator {
public:
  /// One warp at a time (`newWarpIv` the warp loop's index), or, with
  /// `newWarpIv` null, the block's `threads` threads together.
  WarpEmulator(IRRewriter &rewriter, func::FuncOp fn, Value warpIv, Value laneIv, Value newWarpIv,
               int64_t threads = kWarpSize)
      : rewriter(rewriter), fn(fn), warpIv(warpIv), laneIv(laneIv), threads(threads) {
    if (newWarpIv)
      uniforms.map(warpIv, newWarpIv);
  }

  /// Emits `block`'s ops (all lanes) at the rewriter's insertion point.
  LogicalResult emulate(Block &block) {
    SmallVector<Operation *> phase;
    for (Operation &op : block.without_terminator()) {
      if (!containsWarpCollective(&op)) {
        phase.push_back(&op);
        continue;
      }
      if (failed(emitPhase(phase)))
        return failure();
      phase.clear();
      if (failed(emitCollective(op)))
        return failure();
    }
    return emitPhase(phase);
  }

private:
  /// An op that holds a warp collective, emitted once for the whole warp.
  LogicalResult emitCollective(Operation &op) {
    if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
      return emitReduction(reduce);
    if (auto mma = dyn_cast<mt::WarpMmaOp>(op))
      return emitMma(mma);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return emitUniformFor(loop);
    // The phases before it are done for every thread of the block.
    if (isa<gpu::BarrierOp>(op))
      return success();
    // A guard around a row (rows past the end): the same for every lane.
    auto guard = dyn_cast<scf::IfOp>(op);
    if (!guard || guard.getNumResults() != 0)
      return op.emitError("mt-emulate-gpu-kernels: a warp collective inside control flow "
                          "other than a row's guard or a loop with the same bounds in every lane");
    FailureOr<Value> condition = uniform(guard.getCondition(), guard);
    if (failed(condition))
      return failure();
    auto copy = scf::IfOp::create(rewriter, op.getLoc(), *condition,
                                  /*withElseRegion=*/!guard.getElseRegion().empty());
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPoint(copy.thenBlock()->getTerminator());
    if (failed(emulate(*guard.thenBlock())))
      return failure();
    if (guard.getElseRegion().empty())
      return success();
    rewriter.setInsertionPoint(copy.elseBlock()->getTerminator());
    return emulate(*guard.elseBlock());
  }

  /// A loop with the same bounds in every lane around collectives (a tile
  /// loop): one warp-level loop whose body is emulated in phases. What the
  /// lanes carry from one iteration to the next waits in a buffer per
  /// iter_arg: the lanes store their initial values, each iteration's phases
  /// read them, and a last phase stores what the iteration yields (each lane
  /// its own slot, after every phase of the iteration has read it).
  LogicalResult emitUniformFor(scf::ForOp loop) {
    Location loc = loop.getLoc();
    FailureOr<Value> lower = uniform(loop.getLowerBound(), loop);
    FailureOr<Value> upper = uniform(loop.getUpperBound(), loop);
    FailureOr<Value> step = uniform(loop.getStep(), loop);
    if (failed(lower) || failed(upper) || failed(step))
      return failure();
    SmallVector<Value> carried;
    for (Value arg : loop.getRegionIterArgs()) {
      if (!arg.getType().isIntOrIndexOrFloat() && !isa<VectorType>(arg.getType()))
        return loop.emitError() << "mt-emulate-gpu-kernels: cannot carry a lane's "
                                << arg.getType() << " from one iteration to the next";
      carried.push_back(laneBuffer(loc, arg.getType()));
    }
    if (failed(storeLanes(loop.getInitArgs(), carried, loc)))
      return failure();
    auto warpLoop = scf::ForOp::create(rewriter, loc, *lower, *upper, *step);
    uniforms.map(loop.getInductionVar(), warpLoop.getInductionVar());
    for (auto [arg, buffer] : llvm::zip(loop.getRegionIterArgs(), carried))
      earlier[arg] = Earlier{Value(), Value(), buffer};
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(warpLoop.getBody()->getTerminator());
      if (failed(emulate(*loop.getBody())) ||
          failed(storeLanes(loop.getBody()->getTerminator()->getOperands(), carried, loc)))
        return failure();
    }
    for (auto [result, buffer] : llvm::zip(loop.getResults(), carried))
      earlier[result] = Earlier{Value(), Value(), buffer};
    return success();
  }

  /// One phase: every lane stores its `values` into `buffers`, all read
  /// before any is written (a yield may swap them).
  LogicalResult storeLanes(ValueRange values, ArrayRef<Value> buffers, Location loc) {
    if (values.empty())
      return success();
    OpBuilder::InsertionGuard g(rewriter);
    Value lane = laneLoop(loc);
    SmallVector<Value> read;
    for (Value v : values) {
      FailureOr<Value> r = laneValue(v, lane, loc);
      if (failed(r))
        return failure();
      read.push_back(*r);
    }
    for (auto [v, buffer] : llvm::zip(read, buffers))
      memref::StoreOp::create(rewriter, loc, v, buffer, lane);
    return success();
  }

  IRRewriter &rewriter;
  func::FuncOp fn;
  Value warpIv, laneIv;
  int64_t threads; ///< 32, or the block's threads when its warps run together
  bool wholeBlock() const { return threads != kWarpSize; }
  /// Thread `thread`'s lane in its warp, and the warp's first thread.
  Value laneIn(Value thread) { return wholeBlock() ? bits(thread, 0, kWarpSize - 1) : thread; }
  /// Lane `l` of the warp of thread `thread`, as a thread.
  Value sameWarp(Value thread, Value l) {
    if (!wholeBlock())
      return l;
    return add(arith::SubIOp::create(rewriter, thread.getLoc(), thread, laneIn(thread)), l);
  }
  /// A value of an earlier phase: its copy inside that phase's lane loop
  /// (and that loop's lane), or its 32 lanes in a buffer.
  struct Earlier {
    Value copy, lane;
    Value lanes; // memref<32xT>, made when a later phase needs it
  };
  llvm::DenseMap<Value, Earlier> earlier;
  /// Values the same in every lane, as the warp-level code has them: the
  /// warp's index and the induction variables of uniform loops.
  IRMapping uniforms;

  Value index(Location loc, int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); }

  /// A buffer of an element of `type` per thread, allocated on the stack at
  /// the function's start (each warp or block reuses it).
  Value laneBuffer(Location loc, Type type) {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&fn.getBody().front());
    return memref::AllocaOp::create(rewriter, loc, MemRefType::get({threads}, type));
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
    if (Value u = uniforms.lookupOrNull(v))
      return u;
    if (!insideWarp(v))
      return v;
    Operation *def = v.getDefiningOp();
    if (!def || (earlier.count(v) && !earlier[v].copy))
      return guard->emitError("mt-emulate-gpu-kernels: a lane-dependent row guard or loop bound");
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return guard->emitError("mt-emulate-gpu-kernels: a row guard or loop bound that reads "
                              "memory");
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
        scf::ForOp::create(rewriter, loc, index(loc, 0), index(loc, threads), index(loc, 1));
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPoint(lanes.getBody()->getTerminator());
    Value lane = lanes.getInductionVar();
    IRMapping mapping = uniforms;
    mapping.map(laneIv, laneIn(lane));
    if (wholeBlock())
      mapping.map(warpIv, arith::DivUIOp::create(rewriter, loc, lane, index(loc, kWarpSize)));
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

  /// The GPU's butterfly over the lanes' values of `reduce`'s operand: the
  /// whole warp, or each cluster of consecutive lanes (offsets below the
  /// cluster size, as mt-lower-warp-reductions shuffles them).
  LogicalResult emitReduction(gpu::SubgroupReduceOp reduce) {
    Location loc = reduce.getLoc();
    int64_t width = reduce.getClusterSize().value_or(kWarpSize);
    if (reduce.getClusterStride() != 1 || width > kWarpSize ||
        (reduce.getOp() != gpu::AllReduceOperation::ADD &&
         reduce.getOp() != gpu::AllReduceOperation::MAXIMUMF))
      return reduce.emitError("mt-emulate-gpu-kernels: only sums and maxima over the warp or "
                              "clusters of consecutive lanes");
    FailureOr<Value> current = lanesOf(reduce.getValue(), loc);
    if (failed(current))
      return failure();
    Type type = reduce.getType();
    for (int64_t offset = 1; offset < width; offset *= 2) {
      Value next = laneBuffer(loc, type);
      OpBuilder::InsertionGuard g(rewriter);
      Value lane = laneLoop(loc);
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

  /// A loop over the 32 lanes (or the block's threads) at the insertion
  /// point, which moves into its body; returns the lane (or thread).
  Value laneLoop(Location loc) {
    auto lanes =
        scf::ForOp::create(rewriter, loc, index(loc, 0), index(loc, threads), index(loc, 1));
    rewriter.setInsertionPoint(lanes.getBody()->getTerminator());
    return lanes.getInductionVar();
  }

  /// Whether `v` is computed inside the warp's lane body (or is the lane).
  bool insideWarp(Value v) {
    Operation *def = v.getDefiningOp();
    Region *region = def ? def->getParentRegion() : cast<BlockArgument>(v).getParentRegion();
    return laneIv.getParentRegion()->isAncestor(region);
  }

  /// Reads `v`'s value in lane `lane` (an index): from its lanes' buffer, or
  /// `v` itself where it was computed before the warp (the same in every lane).
  FailureOr<Value> laneValue(Value v, Value lane, Location loc) {
    if (Value u = uniforms.lookupOrNull(v))
      return u;
    if (!earlier.count(v) && !insideWarp(v))
      return v;
    FailureOr<Value> buffer = lanesOf(v, loc);
    if (failed(buffer))
      return failure();
    return memref::LoadOp::create(rewriter, loc, *buffer, lane).getResult();
  }

  /// (v >> shift) & mask, v + w and v * f on indices.
  Value bits(Value v, int64_t shift, int64_t mask) {
    Location loc = v.getLoc();
    Value shifted = shift ? arith::ShRUIOp::create(rewriter, loc, v, index(loc, shift)) : v;
    return arith::AndIOp::create(rewriter, loc, shifted, index(loc, mask));
  }
  Value add(Value v, Value w) { return arith::AddIOp::create(rewriter, v.getLoc(), v, w); }
  Value times(Value v, int64_t f) {
    return arith::MulIOp::create(rewriter, v.getLoc(), v, index(v.getLoc(), f));
  }

  /// Element `position` of the vector lane `lane` holds of `v`, widened to f32.
  FailureOr<Value> fragmentElement(Value v, Value lane, Value position, Location loc) {
    FailureOr<Value> vector = laneValue(v, lane, loc);
    if (failed(vector))
      return failure();
    Value element = vector::ExtractOp::create(rewriter, loc, *vector, OpFoldResult(position));
    return arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), element).getResult();
  }

  /// D = A x B + C over the warp (mt.warp_mma's fragment layout, docs/spec.md):
  /// lane l's element e of D is at row (l >> 2) + 8 (e >> 1), column
  /// 2 (l & 3) + (e & 1); for k = 0..15 in turn, A[row, k] is element
  /// (k & 1) + 2 (row >> 3) + 4 (k >> 3) of lane 4 (row & 7) + ((k & 7) >> 1),
  /// and B[k, column] element (k & 1) + 2 (k >> 3) of lane 4 column +
  /// ((k & 7) >> 1). Each product is exact in f32 and added unfused.
  LogicalResult emitMma(mt::WarpMmaOp mma) {
    Location loc = mma.getLoc();
    Value result = laneBuffer(loc, mma.getType());
    OpBuilder::InsertionGuard g(rewriter);
    Value lane = laneLoop(loc);
    FailureOr<Value> c = laneValue(mma.getC(), lane, loc);
    if (failed(c))
      return failure();
    LogicalResult status = success();
    auto elements = scf::ForOp::create(
        rewriter, loc, index(loc, 0), index(loc, 4), index(loc, 1), ValueRange{*c},
        [&](OpBuilder &b, Location, Value e, ValueRange d) {
          OpBuilder::InsertionGuard inner(rewriter);
          rewriter.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
          Value own = laneIn(lane);
          Value row = add(bits(own, 2, 7), times(bits(e, 1, 1), 8));
          Value column = add(times(bits(own, 0, 3), 2), bits(e, 0, 1));
          Value start = vector::ExtractOp::create(rewriter, loc, d[0], OpFoldResult(e));
          auto steps = scf::ForOp::create(
              rewriter, loc, index(loc, 0), index(loc, 16), index(loc, 1), ValueRange{start},
              [&](OpBuilder &b2, Location, Value k, ValueRange acc) {
                OpBuilder::InsertionGuard innermost(rewriter);
                rewriter.setInsertionPoint(b2.getInsertionBlock(), b2.getInsertionPoint());
                Value pairLane = bits(k, 1, 3);
                Value aLane = sameWarp(lane, add(times(bits(row, 0, 7), 4), pairLane));
                Value aAt = add(add(bits(k, 0, 1), times(bits(row, 3, 1), 2)),
                                times(bits(k, 3, 1), 4));
                Value bLane = sameWarp(lane, add(times(column, 4), pairLane));
                Value bAt = add(bits(k, 0, 1), times(bits(k, 3, 1), 2));
                FailureOr<Value> x = fragmentElement(mma.getA(), aLane, aAt, loc);
                FailureOr<Value> y = fragmentElement(mma.getB(), bLane, bAt, loc);
                Value sum = acc[0];
                if (failed(x) || failed(y))
                  status = failure();
                else
                  sum = arith::AddFOp::create(rewriter, loc, acc[0],
                                              arith::MulFOp::create(rewriter, loc, *x, *y));
                scf::YieldOp::create(rewriter, loc, sum);
              });
          Value updated =
              vector::InsertOp::create(rewriter, loc, steps.getResult(0), d[0], OpFoldResult(e));
          scf::YieldOp::create(rewriter, loc, updated);
        });
    if (failed(status))
      return failure();
    memref::StoreOp::create(rewriter, loc, elements.getResult(0), result, lane);
    earlier[mma.getResult()] = Earlier{Value(), Value(), result};
    return success();
  }
};

/// The lanes of mapRowsToWarps' warps: an scf.parallel mapped to
/// (thread_y, thread_x) over (rows per block, 32).
/// Whether `type` is in GPU workgroup (shared) memory.
bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Each block's workgroup buffers (allocas in workgroup memory, made by the
/// block outside its warp loops) as host buffers of the same shape; their
/// uses may only access them.
LogicalResult hostWorkgroupBuffers(IRRewriter &rewriter, func::FuncOp fn,
                                   ArrayRef<scf::ParallelOp> warps) {
  SmallVector<memref::AllocaOp> shared;
  fn.walk([&](memref::AllocaOp a) {
    if (inWorkgroupMemory(a.getType()))
      shared.push_back(a);
  });
  for (memref::AllocaOp a : shared) {
    for (scf::ParallelOp p : warps)
      if (p->isAncestor(a))
        return a.emitError("mt-emulate-gpu-kernels: a workgroup buffer made inside a warp loop "
                           "(a block's buffer is made once, outside its threads)");
    for (Operation *user : a->getUsers())
      if (!isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
               vector::TransferReadOp, vector::TransferWriteOp>(user))
        return user->emitError("mt-emulate-gpu-kernels: a workgroup buffer used other than by "
                               "loads and stores");
    MemRefType type = a.getType();
    auto host = MemRefType::get(type.getShape(), type.getElementType(), type.getLayout());
    rewriter.setInsertionPoint(a);
    auto replacement = memref::AllocaOp::create(rewriter, a.getLoc(), host,
                                                a.getDynamicSizes(), a.getSymbolOperands(),
                                                a.getAlignmentAttr());
    rewriter.replaceOp(a, replacement);
  }
  return success();
}

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
        if (isWarpLoop(p) && containsWarpCollective(p))
          warps.push_back(p);
      });
      if (failed(hostWorkgroupBuffers(rewriter, fn, warps)))
        return signalPassFailure();
      for (scf::ParallelOp p : warps) {
        Location loc = p.getLoc();
        rewriter.setInsertionPoint(p);
        if (p->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); }).wasInterrupted()) {
          // The block's warps together: a barrier orders all of them.
          auto warpsPerBlock = getConstantIntValue(p.getUpperBound()[0]);
          if (!warpsPerBlock || !isConstantIntValue(p.getLowerBound()[0], 0) ||
              !isConstantIntValue(p.getStep()[0], 1)) {
            p.emitError("mt-emulate-gpu-kernels: a block barrier among a number of warps not "
                        "known at compile time");
            return signalPassFailure();
          }
          WarpEmulator emulator(rewriter, fn, p.getInductionVars()[0], p.getInductionVars()[1],
                                Value(), *warpsPerBlock * kWarpSize);
          if (failed(emulator.emulate(*p.getBody())))
            return signalPassFailure();
          rewriter.eraseOp(p);
          continue;
        }
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
