//===- SiblingKernels.cpp - independent kernels as one launch ---------------===//
//
// A layer norm's gradient sums its weight's and its bias's gradients down
// the same rows, each as a kernel of partial sums and a kernel of their
// total (ColumnReductions.cpp): four launches where two do, 50 of the 125
// launches of GPT-2's layer-norm gradients on an H100
// (bench/gpu/results/2026-11-27-h100-run8.log). The optimizer updates and
// sums each parameter in kernels of its own. Independent kernels run one
// after the other in one launch instead.
//
//===----------------------------------------------------------------------===//
#include "SiblingKernels.h"

#include "BufferRanges.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>

using namespace mlir;

namespace mt {
namespace {

/// Ops with memory effects (kernels, allocations) searched past for a
/// sibling; constants and views are not counted.
constexpr size_t kMaxBetween = 24;

/// The most bytes of kernel parameters a merged kernel may take: what its
/// bodies capture becomes the kernel's arguments (a memref is a descriptor
/// of 8 x (3 + 2 x rank) bytes), and sm_80's limit is 4352.
constexpr int64_t kMaxParameterBytes = 3072;

/// Kernels of at most this many iterations may move down to join a later
/// kernel: the second level of a column sum (a bias of 3072 fp32 columns
/// is 768 chunks), which reads only its partial sums and adds into its
/// gradient, so it can wait for a later launch past GEMMs and kernels that
/// touch neither.
constexpr int64_t kSmallKernelChunks = 4096;

/// Ops with memory effects a small kernel may be moved past.
constexpr size_t kMaxSunkPast = 64;

int64_t parameterBytes(ArrayRef<Operation *> kernels) {
  llvm::SetVector<Value> captured;
  for (Operation *k : kernels)
    for (Region &region : k->getRegions())
      getUsedValuesDefinedAbove(region, captured);
  int64_t bytes = 0;
  for (Value v : captured)
    if (auto m = dyn_cast<MemRefType>(v.getType()))
      bytes += 8 * (3 + 2 * m.getRank());
    else
      bytes += 8;
  return bytes;
}

/// A memref an op reads or writes and the bytes of which buffer it views.
struct Access {
  Value memref;
  BufferRange range;
};

Access accessOf(Value memref) { return {memref, rangeOf(memref)}; }

bool mayShare(const Access &x, const Access &y) {
  return mayOverlap(x.range, y.range) && !interleaveDisjointly(x.memref, y.memref);
}

/// What an operand of a BLAS call is: a pointer into a memref (that memref,
/// from its aligned pointer plus the view's offset), a scalar (null: a
/// size, a stride), or failure where it cannot tell.
FailureOr<Value> blasOperand(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();
  if (auto pointer = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(def))
    return pointer.getSource();
  if (isa<arith::ConstantOp, memref::ExtractStridedMetadataOp>(def))
    return Value();
  if (!isa<arith::IndexCastOp, arith::AddIOp, arith::MulIOp>(def))
    return failure();
  Value found;
  for (Value operand : def->getOperands()) {
    FailureOr<Value> inner = blasOperand(operand);
    if (failed(inner) || (*inner && found))
      return failure();
    if (*inner)
      found = *inner;
  }
  return found;
}

/// A call into the runtime's GEMMs (mt-convert-contractions-to-blas): it
/// touches the buffers whose pointers it takes, and nothing else.
bool isBlasCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee().starts_with("mt_blas_");
}

/// The buffers an op reads and writes; `unknown` when it touches memory
/// some other way (a call, an address taken).
struct Effects {
  SmallVector<Access> reads, writes;
  bool unknown = false;

  explicit Effects(Operation *op) {
    op->walk([&](Operation *inner) {
      if (auto load = dyn_cast<vector::LoadOp>(inner))
        reads.push_back(accessOf(load.getBase()));
      else if (auto load = dyn_cast<memref::LoadOp>(inner))
        reads.push_back(accessOf(load.getMemRef()));
      else if (auto store = dyn_cast<vector::StoreOp>(inner))
        writes.push_back(accessOf(store.getBase()));
      else if (auto store = dyn_cast<memref::StoreOp>(inner))
        writes.push_back(accessOf(store.getMemRef()));
      else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner))
        for (OpOperand &operand : linalgOp->getOpOperands()) {
          if (!isa<MemRefType>(operand.get().getType()))
            continue; // a scalar (a fill's value)
          reads.push_back(accessOf(operand.get()));
          if (linalgOp.isDpsInit(&operand))
            writes.push_back(accessOf(operand.get()));
        }
      else if (isBlasCall(inner))
        // Each buffer it points into, as read and written.
        for (Value operand : inner->getOperands()) {
          FailureOr<Value> buffer = blasOperand(operand);
          if (failed(buffer)) {
            unknown = true;
          } else if (*buffer) {
            reads.push_back(accessOf(*buffer));
            writes.push_back(accessOf(*buffer));
          }
        }
      else if (isa<CallOpInterface>(inner) ||
               // Loops pass buffers on; their loads and stores are seen.
               (!isa<ViewLikeOpInterface, memref::AllocOp, memref::DimOp, scf::ForOp,
                     scf::YieldOp>(inner) &&
                llvm::any_of(inner->getOperandTypes(), llvm::IsaPred<MemRefType>)))
        unknown = true;
    });
  }

  bool conflictsWith(const Effects &other) const {
    if (unknown || other.unknown)
      return true;
    auto any = [](ArrayRef<Access> xs, ArrayRef<Access> ys) {
      return llvm::any_of(xs, [&](const Access &x) {
        return llvm::any_of(ys, [&](const Access &y) { return mayShare(x, y); });
      });
    };
    return any(writes, other.reads) || any(writes, other.writes) || any(other.writes, reads);
  }
};

std::optional<int64_t> chunkCount(scf::ParallelOp p) {
  if (p.getNumLoops() != 1 || getConstantIntValue(p.getLowerBound()[0]) != 0 ||
      getConstantIntValue(p.getStep()[0]) != 1)
    return std::nullopt;
  return getConstantIntValue(p.getUpperBound()[0]);
}

/// Wraps `p`'s body in `if (iv < bound)`: it runs on the first `bound`
/// iterations of a loop that now has more.
void guardBody(IRRewriter &rewriter, scf::ParallelOp p, int64_t bound) {
  Block *body = p.getBody();
  Location loc = p.getLoc();
  Operation *firstOp = &body->front();
  if (firstOp == body->getTerminator())
    return;
  rewriter.setInsertionPoint(body->getTerminator());
  Value limit = arith::ConstantIndexOp::create(rewriter, loc, bound);
  Value inside = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                       p.getInductionVars()[0], limit);
  auto guard = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
  for (Operation *op = firstOp; op != limit.getDefiningOp();) {
    Operation *next = op->getNextNode();
    op->moveBefore(guard.thenBlock()->getTerminator());
    op = next;
  }
}

/// The ops between `first` and `later` that compute what `later` uses, in
/// block order, when all of them can move before `first` (no memory
/// effects, no regions); failure otherwise.
FailureOr<SmallVector<Operation *>> definersToHoist(Operation *first, Operation *later) {
  llvm::SetVector<Value> used(later->getOperands().begin(), later->getOperands().end());
  for (Region &region : later->getRegions())
    getUsedValuesDefinedAbove(region, used);
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> worklist(used.begin(), used.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != first->getBlock() || def->isBeforeInBlock(first) ||
        needed.contains(def))
      continue;
    // An allocation moves up too: its buffer is only used later.
    if (def->getNumRegions() || !(isMemoryEffectFree(def) || isa<memref::AllocOp>(def)))
      return failure();
    needed.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(needed.begin(), needed.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// `first`'s location once `later` joined it: a name holding both ops'
/// names (mt-lower-to-linalg names each op's loops; mt-describe-kernels
/// names the kernel after it), so a profile shows everything the launch
/// runs: "accumulate__embedding_grad", not "accumulate". Names already
/// there are not repeated (sixteen AdamW updates stay "adamw").
Location joinedLocation(Location first, Location later) {
  auto a = dyn_cast<NameLoc>(first), b = dyn_cast<NameLoc>(later);
  if (!a || !b)
    return first;
  StringRef joined = a.getName().getValue(), added = b.getName().getValue();
  SmallVector<StringRef> parts;
  joined.split(parts, "__");
  if (llvm::is_contained(parts, added))
    return first;
  return NameLoc::get(StringAttr::get(first.getContext(), joined + "__" + added),
                      a.getChildLoc());
}

/// The kernel after `first` (past at most kMaxBetween ops with effects)
/// that can join it.
scf::ParallelOp siblingOf(scf::ParallelOp first,
                          const llvm::SmallPtrSetImpl<Operation *> &candidates,
                          SmallVectorImpl<Operation *> &hoist) {
  std::optional<int64_t> chunks = chunkCount(first);
  if (!chunks)
    return {};
  Effects firstEffects(first);
  SmallVector<Effects> between;
  for (Operation *at = first->getNextNode(); at && between.size() < kMaxBetween;
       at = at->getNextNode()) {
    auto later = dyn_cast<scf::ParallelOp>(at);
    if (later && candidates.contains(later) && chunkCount(later)) {
      Effects laterEffects(later);
      FailureOr<SmallVector<Operation *>> defs = definersToHoist(first, later);
      if (succeeded(defs) && parameterBytes({first, later}) <= kMaxParameterBytes &&
          !laterEffects.conflictsWith(firstEffects) &&
          llvm::none_of(between, [&](const Effects &e) { return laterEffects.conflictsWith(e); })) {
        hoist.assign(defs->begin(), defs->end());
        return later;
      }
    }
    if (!isMemoryEffectFree(at) || at->getNumRegions())
      between.emplace_back(at);
  }
  return {};
}

/// Runs `from`'s body in `into`'s launch, before or after `into`'s own,
/// each body guarded by its size (the loop takes the larger); `from` is
/// erased.
void joinKernel(IRRewriter &rewriter, scf::ParallelOp into, scf::ParallelOp from,
                bool fromFirst) {
  int64_t n = *chunkCount(into), m = *chunkCount(from);
  if (m < n)
    guardBody(rewriter, from, m);
  if (n < m) {
    guardBody(rewriter, into, n);
    rewriter.setInsertionPoint(into);
    into.getUpperBoundMutable()[0].assign(
        arith::ConstantIndexOp::create(rewriter, into.getLoc(), m));
  }
  into->setLoc(fromFirst ? joinedLocation(from.getLoc(), into.getLoc())
                         : joinedLocation(into.getLoc(), from.getLoc()));
  rewriter.replaceAllUsesWith(from.getInductionVars()[0], into.getInductionVars()[0]);
  Block *body = into.getBody();
  Operation *at = fromFirst ? &body->front() : body->getTerminator();
  for (Operation &op : llvm::make_early_inc_range(from.getBody()->without_terminator()))
    op.moveBefore(at);
  rewriter.eraseOp(from);
}

/// The kernel after small kernel `k` that `k` can join where that kernel
/// is: one that neither it nor any op between them (GEMMs included)
/// touches a byte of what `k` writes, or writes what `k` reads.
scf::ParallelOp laterKernelFor(scf::ParallelOp k,
                               const llvm::SmallPtrSetImpl<Operation *> &candidates) {
  Effects mine(k);
  size_t passed = 0;
  for (Operation *at = k->getNextNode(); at && passed < kMaxSunkPast; at = at->getNextNode()) {
    auto later = dyn_cast<scf::ParallelOp>(at);
    if (later && candidates.contains(later) && chunkCount(later) &&
        parameterBytes({k, later}) <= kMaxParameterBytes && !mine.conflictsWith(Effects(later)))
      return later;
    if (isMemoryEffectFree(at) && !at->getNumRegions())
      continue;
    if (mine.conflictsWith(Effects(at)))
      return {};
    ++passed;
  }
  return {};
}

} // namespace

bool mayConflict(Operation *a, Operation *b) { return Effects(a).conflictsWith(Effects(b)); }

void sinkSmallKernels(IRRewriter &rewriter, SmallVectorImpl<scf::ParallelOp> &kernels) {
  llvm::SmallPtrSet<Operation *, 16> candidates;
  for (scf::ParallelOp k : kernels)
    candidates.insert(k);
  SmallVector<scf::ParallelOp> ordered(kernels.begin(), kernels.end());
  llvm::stable_sort(ordered, [](scf::ParallelOp a, scf::ParallelOp b) {
    return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
  });
  llvm::SmallPtrSet<Operation *, 16> joined;
  for (scf::ParallelOp k : ordered) {
    std::optional<int64_t> chunks = chunkCount(k);
    if (!chunks || *chunks > kSmallKernelChunks)
      continue;
    if (scf::ParallelOp later = laterKernelFor(k, candidates)) {
      candidates.erase(k);
      joined.insert(k);
      joinKernel(rewriter, later, k, /*fromFirst=*/true);
    }
  }
  llvm::erase_if(kernels, [&](scf::ParallelOp k) { return joined.contains(k.getOperation()); });
}

void mergeSiblingKernels(IRRewriter &rewriter, SmallVectorImpl<scf::ParallelOp> &kernels) {
  llvm::SmallPtrSet<Operation *, 16> candidates;
  for (scf::ParallelOp k : kernels)
    candidates.insert(k);
  llvm::SmallPtrSet<Operation *, 16> merged;
  // In program order, each kernel gathering the later ones it can.
  SmallVector<scf::ParallelOp> ordered(kernels.begin(), kernels.end());
  llvm::stable_sort(ordered, [](scf::ParallelOp a, scf::ParallelOp b) {
    return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
  });
  for (scf::ParallelOp first : ordered) {
    if (merged.contains(first))
      continue;
    SmallVector<Operation *> hoist;
    while (scf::ParallelOp later = siblingOf(first, candidates, hoist)) {
      for (Operation *def : hoist)
        def->moveBefore(first);
      candidates.erase(later);
      merged.insert(later);
      joinKernel(rewriter, first, later, /*fromFirst=*/false);
    }
  }
  llvm::erase_if(kernels, [&](scf::ParallelOp k) { return merged.contains(k.getOperation()); });
  sinkSmallKernels(rewriter, kernels);
}

} // namespace mt
