//===- PlanBuffers.cpp - temporaries at planned offsets in one arena -------===//
#include "mt/Conversion/Passes.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Memory/ArenaPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace mt {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

int64_t bytesOf(MemRefType t) {
  unsigned bits = t.getElementType().isIntOrFloat() ? t.getElementType().getIntOrFloatBitWidth()
                                                    : 64;
  return t.getNumElements() * std::max<int64_t>((bits + 7) / 8, 1);
}

struct PlanBuffersPass : mt::impl::PlanBuffersPassBase<PlanBuffersPass> {
  using Base::Base;

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
          if (isa<scf::YieldOp>(owner) && owner->getParentOp()->getNumResults() > use.getOperandNumber())
            aliases.push_back(owner->getParentOp()->getResult(use.getOperandNumber()));
        }
      }
      lifetimes.push_back(life);
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
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(), arena, at,
                                            ValueRange{});
      alloc.replaceAllUsesWith(view);
      alloc.erase();
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

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      module.emitError() << "mt-plan-buffers: alignment must be a power of two, got "
                         << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    llvm::StringSet<> called;
    module.walk([&](func::CallOp call) { called.insert(call.getCallee()); });
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (called.contains(fn.getSymName())) {
        fn.emitError("mt-plan-buffers: a function another function calls cannot take an "
                     "arena argument");
        return signalPassFailure();
      }
      if (failed(planFunction(fn)))
        return signalPassFailure();
    }
  }
};

} // namespace
