//===- PlanBuffers.cpp - temporaries at planned offsets in one arena -------===//
#include "mt/Conversion/Passes.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Memory/ArenaPlan.h"
#include "mt/Runtime/Abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace mt {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

int64_t bytesOf(MemRefType t) {
  unsigned bits =
      t.getElementType().isIntOrFloat() ? t.getElementType().getIntOrFloatBitWidth() : 64;
  return t.getNumElements() * std::max<int64_t>((bits + 7) / 8, 1);
}

struct PlanBuffersPass : mt::impl::PlanBuffersPassBase<PlanBuffersPass> {
  using Base::Base;

  /// Arena bytes of the functions planned so far; -1 while one is planned.
  llvm::StringMap<int64_t> planned;

  LogicalResult planFunction(func::FuncOp fn) {
    Block &entry = fn.getBody().front();
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t n = 0;
    for (Operation &op : entry)
      position[&op] = n++;

    SmallVector<memref::AllocOp> allocs;
    WalkResult walk = fn.walk([&](memref::AllocOp alloc) {
      if (alloc->getBlock() != &entry) {
        alloc.emitError("mt-plan-buffers: an allocation inside a nested region cannot be "
                        "placed in the arena");
        return WalkResult::interrupt();
      }
      if (!alloc.getType().hasStaticShape() || !alloc.getType().getLayout().isIdentity()) {
        alloc.emitError("mt-plan-buffers: an allocation needs a static shape and the identity "
                        "layout to be placed in the arena");
        return WalkResult::interrupt();
      }
      allocs.push_back(alloc);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // A buffer lives until the last use of it or of any view of it.
    std::vector<mt::BufferLifetime> lifetimes;
    llvm::DenseMap<Value, size_t> bufferOf; // each alias -> its allocation's index
    for (memref::AllocOp alloc : allocs) {
      mt::BufferLifetime life;
      life.bytes = bytesOf(alloc.getType());
      life.first = life.last = position[alloc];
      SmallVector<Value> aliases{alloc.getResult()};
      llvm::SmallPtrSet<Value, 8> seen;
      while (!aliases.empty()) {
        Value v = aliases.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        bufferOf[v] = lifetimes.size();
        for (OpOperand &use : v.getUses()) {
          Operation *owner = use.getOwner();
          Operation *top = entry.findAncestorOpInBlock(*owner);
          if (top)
            life.last = std::max(life.last, position[top]);
          if (auto view = dyn_cast<ViewLikeOpInterface>(owner))
            if (view.getViewSource() == v)
              aliases.append(view->result_begin(), view->result_end());
          // A buffer carried by a loop lives on in the loop's result.
          if (auto loop = dyn_cast<LoopLikeOpInterface>(owner))
            if (OpResult carried = loop.getTiedLoopResult(&use))
              aliases.push_back(carried);
          if (isa<scf::YieldOp>(owner) &&
              owner->getParentOp()->getNumResults() > use.getOperandNumber())
            aliases.push_back(owner->getParentOp()->getResult(use.getOperandNumber()));
        }
      }
      lifetimes.push_back(life);
    }
    keepStartedCollectivesInputs(entry, position, bufferOf, lifetimes);
    // A call of a planned function lends it a block of this arena while it
    // runs (its temporaries).
    SmallVector<func::CallOp> calls;
    if (failed(callsWithArenas(fn, calls)))
      return failure();
    for (func::CallOp call : calls) {
      int64_t at = position[call];
      lifetimes.push_back(mt::BufferLifetime{planned.lookup(call.getCallee()), at, at});
    }
    mt::ArenaPlan plan = mt::planArena(lifetimes, alignment);

    OpBuilder b(fn.getContext());
    auto arenaType = MemRefType::get({plan.size}, b.getI8Type());
    if (failed(fn.insertArgument(fn.getNumArguments(), arenaType, {}, fn.getLoc())))
      return failure();
    Value arena = entry.getArgument(entry.getNumArguments() - 1);
    fn->setAttr(mt::kArenaBytesAttrName, b.getI64IntegerAttr(plan.size));
    for (auto [alloc, offset] : llvm::zip(allocs, plan.offsets)) {
      b.setInsertionPoint(alloc);
      Value at = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view =
          memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(), arena, at, ValueRange{});
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    for (auto [call, offset] : llvm::zip(calls, ArrayRef(plan.offsets).drop_front(allocs.size()))) {
      b.setInsertionPoint(call);
      auto type = MemRefType::get({planned.lookup(call.getCallee())}, b.getI8Type());
      Value at = arith::ConstantIndexOp::create(b, call.getLoc(), offset);
      call.getOperandsMutable().append(
          memref::ViewOp::create(b, call.getLoc(), type, arena, at, ValueRange{}).getResult());
    }
    // Deallocations of planned buffers are the arena's now.
    SmallVector<memref::DeallocOp> deallocs;
    fn.walk([&](memref::DeallocOp d) {
      if (d.getMemref().getDefiningOp<memref::ViewOp>())
        deallocs.push_back(d);
    });
    for (memref::DeallocOp d : deallocs)
      d.erase();
    return success();
  }

  /// A collective started ahead of its wait (mt_rt_*_start) may read its
  /// input until the wait: on a GPU, NCCL reads it on a stream of its own
  /// while the kernels between go on. So every buffer a start is passed
  /// lives until the wait on its result (its output's address), and no
  /// kernel in between is given its bytes.
  static void keepStartedCollectivesInputs(Block &entry,
                                           const llvm::DenseMap<Operation *, int64_t> &position,
                                           const llvm::DenseMap<Value, size_t> &bufferOf,
                                           std::vector<mt::BufferLifetime> &lifetimes) {
    // The allocation whose address an operand passes, if any.
    auto bufferPassed = [&](Value operand) -> std::optional<size_t> {
      if (auto cast = operand.getDefiningOp<arith::IndexCastOp>())
        operand = cast.getIn();
      auto address = operand.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>();
      if (!address)
        return std::nullopt;
      auto it = bufferOf.find(address.getSource());
      return it == bufferOf.end() ? std::nullopt : std::optional<size_t>(it->second);
    };
    // Started collectives by the buffer their wait names (the all-reduce's
    // works in place: its first operand; the others' output: their second).
    llvm::DenseMap<size_t, SmallVector<size_t>> startedBy;
    // In program order, nested regions (a loop over layers) included.
    for (Operation &top : entry)
      top.walk<WalkOrder::PreOrder>([&](func::CallOp call) {
        StringRef callee = call.getCallee();
        if (callee == MT_RT_COLLECTIVE_WAIT) {
          std::optional<size_t> waited =
              call.getNumOperands() ? bufferPassed(call.getOperand(0)) : std::nullopt;
          if (!waited)
            return;
          for (size_t b : startedBy.lookup(*waited))
            lifetimes[b].last = std::max(lifetimes[b].last, position.lookup(&top));
          startedBy.erase(*waited);
          return;
        }
        bool inPlace = callee == MT_RT_ALL_REDUCE_START;
        if (!inPlace && callee != MT_RT_ALL_GATHER_START && callee != MT_RT_REDUCE_SCATTER_START)
          return;
        unsigned named = inPlace ? 0 : 1;
        std::optional<size_t> waited =
            call.getNumOperands() > named ? bufferPassed(call.getOperand(named)) : std::nullopt;
        if (!waited)
          return;
        for (Value operand : call.getOperands())
          if (std::optional<size_t> b = bufferPassed(operand))
            startedBy[*waited].push_back(*b);
      });
    // A start no wait here names (the runtime joins it at the function's
    // end): its buffers live to the end.
    int64_t end = static_cast<int64_t>(entry.getOperations().size()) - 1;
    for (auto &[waited, buffers] : startedBy)
      for (size_t b : buffers)
        lifetimes[b].last = std::max(lifetimes[b].last, end);
  }

  /// The calls in `fn` of functions with a body (planned first, each once),
  /// all in its entry block.
  LogicalResult callsWithArenas(func::FuncOp fn, SmallVector<func::CallOp> &calls) {
    WalkResult walk = fn.walk([&](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      if (!callee || callee.isExternal())
        return WalkResult::advance();
      if (call->getBlock() != &fn.getBody().front()) {
        call.emitError("mt-plan-buffers: a call inside a nested region cannot lend the callee "
                       "its arena");
        return WalkResult::interrupt();
      }
      if (failed(planOnce(callee)))
        return WalkResult::interrupt();
      calls.push_back(call);
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  LogicalResult planOnce(func::FuncOp fn) {
    auto [it, fresh] = planned.try_emplace(fn.getSymName(), -1);
    if (!fresh) {
      if (it->second >= 0)
        return success();
      return fn.emitError("mt-plan-buffers: a function that calls itself (directly or not) has "
                          "no arena of bounded size");
    }
    if (failed(planFunction(fn)))
      return failure();
    planned[fn.getSymName()] = fn->getAttrOfType<IntegerAttr>(mt::kArenaBytesAttrName).getInt();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      module.emitError() << "mt-plan-buffers: alignment must be a power of two, got "
                         << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && failed(planOnce(fn)))
        return signalPassFailure();
  }
};

} // namespace
