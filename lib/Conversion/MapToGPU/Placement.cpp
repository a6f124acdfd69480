//===- Placement.cpp - buffers are device memory: the host only launches ---===//
#include "Placement.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

void mt::launchSingleThread(IRRewriter &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  Value one = arith::ConstantIndexOp::create(rewriter, op->getLoc(), 1);
  auto launch = gpu::LaunchOp::create(rewriter, op->getLoc(), one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  op->moveBefore(&body, body.end());
  rewriter.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(rewriter, op->getLoc());
}

namespace {

/// Where a top-level op of a function belongs.
enum class Kind {
  Meta,      // no memory access: constants, views, index arithmetic, allocations
  Invariant, // reads only buffers the function never writes: repeated in each kernel
  Device,    // reads or writes buffers: runs in a single-thread kernel
  Kernel,    // a kernel already (scf.parallel or gpu.launch)
  Host,      // a library call, or a loop making them
};

bool isKernel(Operation *op) { return isa<scf::ParallelOp, gpu::LaunchOp>(op); }

bool containsCall(Operation *op) {
  return op->walk([](func::CallOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

Block &kernelBody(Operation *kernel) {
  if (auto parallel = dyn_cast<scf::ParallelOp>(kernel))
    return *parallel.getBody();
  return cast<gpu::LaunchOp>(kernel).getBody().front();
}

/// Buffers (function arguments and their views) that nothing in `fn` writes:
/// their only users are loads and views.
llvm::DenseSet<Value> readOnlyBuffers(func::FuncOp fn) {
  llvm::DenseSet<Value> result;
  for (BlockArgument arg : fn.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      continue;
    SmallVector<Value> pending{arg}, aliases;
    llvm::DenseSet<Value> seen;
    bool written = false;
    while (!pending.empty() && !written) {
      Value v = pending.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      aliases.push_back(v);
      for (OpOperand &use : v.getUses()) {
        Operation *owner = use.getOwner();
        auto view = dyn_cast<ViewLikeOpInterface>(owner);
        if (view && view.getViewSource() == v) {
          pending.append(owner->result_begin(), owner->result_end());
          continue;
        }
        auto linalgOp = dyn_cast<linalg::LinalgOp>(owner);
        if (isa<memref::LoadOp>(owner) || (linalgOp && linalgOp.isDpsInput(&use)))
          continue;
        written = true; // a store, a copy's target, a library call's operand, ...
        break;
      }
    }
    if (!written)
      result.insert(aliases.begin(), aliases.end());
  }
  return result;
}

/// Loads of constant scalar globals (mt.cross_entropy's 1.0, folded by
/// bufferization into a global) become constants: globals live on the host.
void foldConstantGlobalLoads(func::FuncOp fn, IRRewriter &rewriter) {
  auto module = fn->getParentOfType<ModuleOp>();
  SmallVector<memref::LoadOp> loads;
  fn.walk([&](memref::LoadOp load) {
    if (load.getMemRef().getDefiningOp<memref::GetGlobalOp>())
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    auto get = load.getMemRef().getDefiningOp<memref::GetGlobalOp>();
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(module, get.getNameAttr());
    if (!global || !global.getConstant())
      continue;
    auto init = dyn_cast_or_null<DenseElementsAttr>(global.getConstantInitValue());
    if (!init || !init.isSplat())
      continue;
    rewriter.setInsertionPoint(load);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(load, init.getSplatValue<TypedAttr>());
  }
  SmallVector<memref::GetGlobalOp> unused;
  fn.walk([&](memref::GetGlobalOp get) {
    if (get->use_empty())
      unused.push_back(get);
  });
  for (memref::GetGlobalOp get : unused)
    rewriter.eraseOp(get);
}

class Placer {
public:
  Placer(func::FuncOp fn, IRRewriter &rewriter)
      : fn(fn), entry(fn.getBody().front()), rewriter(rewriter), readOnly(readOnlyBuffers(fn)) {}

  LogicalResult run() {
    classify();
    if (failed(formKernels()))
      return failure();
    if (failed(sinkInvariants()))
      return failure();
    return verify();
  }

private:
  Kind kindOf(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &entry)
      return Kind::Meta; // a function argument: a buffer's descriptor
    return kinds.lookup(def);
  }

  /// Values the op uses: its operands and, for a loop, what its body uses
  /// from above.
  llvm::SetVector<Value> usedValues(Operation *op) {
    llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    return used;
  }

  void classify() {
    for (Operation &op : entry) {
      Kind kind;
      if (isKernel(&op))
        kind = Kind::Kernel;
      else if (isa<func::CallOp>(op) || (op.getNumRegions() && containsCall(&op)))
        kind = Kind::Host;
      else if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp, func::ReturnOp>(op))
        kind = Kind::Meta;
      else {
        Kind strongest = Kind::Meta;
        for (Value v : usedValues(&op)) {
          Kind k = kindOf(v);
          if (k == Kind::Device || (k == Kind::Invariant && strongest == Kind::Meta))
            strongest = k;
        }
        auto load = dyn_cast<memref::LoadOp>(op);
        if (load && readOnly.contains(load.getMemRef()) && strongest != Kind::Device)
          kind = Kind::Invariant;
        else if (isMemoryEffectFree(&op))
          kind = strongest;
        else
          kind = Kind::Device;
      }
      kinds[&op] = kind;
    }
  }

  /// Each run of Device ops between kernels and host calls becomes one
  /// single-thread kernel.
  LogicalResult formKernels() {
    std::vector<SmallVector<Operation *>> groups(1);
    for (Operation &op : entry) {
      Kind kind = kinds.lookup(&op);
      if (kind == Kind::Device)
        groups.back().push_back(&op);
      else if ((kind == Kind::Kernel || kind == Kind::Host ||
                op.hasTrait<OpTrait::IsTerminator>()) &&
               !groups.back().empty())
        groups.emplace_back();
    }
    DenseMap<Operation *, size_t> groupOf;
    for (size_t g = 0; g < groups.size(); ++g)
      for (Operation *op : groups[g])
        groupOf[op] = g;

    for (size_t g = 0; g < groups.size(); ++g) {
      SmallVector<Operation *> &group = groups[g];
      if (group.empty())
        continue;
      llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
      // Scalars later work needs go through a 0-d buffer.
      SmallVector<std::pair<Value, Value>> stashes;
      for (Operation *op : group) {
        for (Value result : op->getResults()) {
          SmallVector<OpOperand *> outside;
          for (OpOperand &use : result.getUses())
            if (!members.contains(entry.findAncestorOpInBlock(*use.getOwner())))
              outside.push_back(&use);
          if (outside.empty())
            continue;
          if (!result.getType().isIntOrIndexOrFloat())
            return op->emitError("mt-map-to-gpu: the host would need this result of device "
                                 "work (only scalars can be passed on)");
          rewriter.setInsertionPoint(group.front());
          Value stash = memref::AllocOp::create(rewriter, op->getLoc(),
                                                MemRefType::get({}, result.getType()));
          kinds[stash.getDefiningOp()] = Kind::Meta;
          stashes.push_back({result, stash});
          DenseMap<Operation *, Value> reloaded; // per kernel or later op
          for (OpOperand *use : outside) {
            Operation *top = entry.findAncestorOpInBlock(*use->getOwner());
            Kind topKind = kinds.lookup(top);
            if (topKind == Kind::Host)
              return use->getOwner()->emitError(
                  "mt-map-to-gpu: a library call would need a value the GPU computes");
            Value &load = reloaded[top];
            if (!load) {
              if (topKind == Kind::Kernel)
                rewriter.setInsertionPointToStart(&kernelBody(top));
              else
                rewriter.setInsertionPoint(top);
              load = memref::LoadOp::create(rewriter, op->getLoc(), stash);
              if (topKind != Kind::Kernel) { // runs in the later op's kernel
                kinds[load.getDefiningOp()] = Kind::Device;
                SmallVector<Operation *> &later = groups[groupOf.lookup(top)];
                later.insert(llvm::find(later, top), load.getDefiningOp());
              }
            }
            use->set(load);
          }
        }
      }
      rewriter.setInsertionPoint(group.back());
      Location loc = group.front()->getLoc();
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      kinds[one.getDefiningOp()] = Kind::Meta;
      auto launch = gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
      kinds[launch] = Kind::Kernel;
      Block &body = launch.getBody().front();
      for (Operation *op : group)
        op->moveBefore(&body, body.end());
      rewriter.setInsertionPointToEnd(&body);
      for (auto [value, stash] : stashes)
        memref::StoreOp::create(rewriter, loc, value, stash);
      gpu::TerminatorOp::create(rewriter, loc);
    }
    return success();
  }

  /// Copies `v`'s Invariant computation into the kernel at `builder`.
  Value cloneInvariant(Value v, OpBuilder &builder, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    for (Value used : usedValues(def))
      if (kindOf(used) == Kind::Invariant)
        cloneInvariant(used, builder, mapping);
    builder.clone(*def, mapping);
    return mapping.lookup(v);
  }

  /// Kernels read what they need of read-only buffers themselves.
  LogicalResult sinkInvariants() {
    for (Operation &op : entry) {
      if (kinds.lookup(&op) != Kind::Kernel)
        continue;
      llvm::SetVector<Value> used;
      getUsedValuesDefinedAbove(op.getRegions(), used);
      OpBuilder builder = OpBuilder::atBlockBegin(&kernelBody(&op));
      IRMapping mapping;
      for (Value v : used) {
        if (kindOf(v) != Kind::Invariant)
          continue;
        Value copy = cloneInvariant(v, builder, mapping);
        v.replaceUsesWithIf(copy,
                            [&](OpOperand &use) { return op.isProperAncestor(use.getOwner()); });
      }
    }
    SmallVector<Operation *> invariants;
    for (Operation &op : entry)
      if (kinds.lookup(&op) == Kind::Invariant)
        invariants.push_back(&op);
    for (Operation *op : llvm::reverse(invariants)) {
      if (!op->use_empty())
        return (*op->getUsers().begin())
            ->emitError("mt-map-to-gpu: the host would need a value read from a buffer");
      rewriter.eraseOp(op);
    }
    return success();
  }

  /// What is left on the host touches no buffer's contents.
  LogicalResult verify() {
    for (Operation &op : entry) {
      Kind kind = kinds.lookup(&op);
      if (kind == Kind::Kernel || isa<memref::AllocOp, memref::DeallocOp>(op) ||
          op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        if (!get->use_empty())
          return get.emitError("mt-map-to-gpu: a global buffer is host memory; kernels cannot "
                               "read it");
        continue;
      }
      WalkResult touches = op.walk([](Operation *inner) {
        return isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, linalg::LinalgOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (touches.wasInterrupted())
        return op.emitError("mt-map-to-gpu: this host code would read or write a buffer, "
                            "which is device memory");
    }
    return success();
  }

  func::FuncOp fn;
  Block &entry;
  IRRewriter &rewriter;
  llvm::DenseSet<Value> readOnly;
  DenseMap<Operation *, Kind> kinds;
};

} // namespace

LogicalResult mt::placeOnDevice(func::FuncOp fn, IRRewriter &rewriter) {
  foldConstantGlobalLoads(fn, rewriter);
  return Placer(fn, rewriter).run();
}
