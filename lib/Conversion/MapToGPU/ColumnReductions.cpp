//===- ColumnReductions.cpp - sums down columns on vectors, with epilogues -===//
//
// A bias gradient was seven launches (a fill and a partial sum per block of
// rows, a fill and the sum of the partials, a rounding to bf16, a widening
// back, the add into the accumulator), and its partial sums read one 2-byte
// element per thread with one load in flight: 7% of an H100's bandwidth
// (bench/gpu/results/2026-11-27-h100-run3.log). Here the partial sums and
// the final sum are a kernel each: 16-byte loads, several rows' loads issued
// before their adds, the fills and the elementwise tail folded in. Every
// output element still adds its terms in the op's order, so the results are
// those of the CPU's loops, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "ColumnReductions.h"

#include "VectorizeElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace mt {
namespace {

/// Rows of the innermost reduction loaded before they are added: a thread
/// waits on one memory latency per group instead of per row.
constexpr int64_t kRowsInFlight = 8;

/// Independent ops an epilogue may be brought forward over.
constexpr size_t kMaxPassed = 8;

/// How many rows a step of a reduction loop over `extent` rows loads.
int64_t rowsPerStep(int64_t extent) {
  for (int64_t u = kRowsInFlight; u > 1; u /= 2)
    if (extent % u == 0)
      return u;
  return 1;
}

/// The buffer `v` views (through reshapes, subviews, casts).
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

bool mentions(Operation *op, Value root) {
  return op
      ->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          if (isa<MemRefType>(operand.getType()) && rootOf(operand) == root)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The fill of `out` shortly before `op` with nothing between touching it.
linalg::FillOp initialFill(linalg::GenericOp op, Value out) {
  Value root = rootOf(out);
  Operation *at = op->getPrevNode();
  for (int steps = 0; at && steps < 16; ++steps, at = at->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(at))
      if (fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == out)
        return fill;
    if (mentions(at, root))
      return {};
  }
  return {};
}

/// The column reduction's shape: its loops, which are parallel (the last
/// one, the columns, among them), the chunk width.
struct Shape {
  SmallVector<int64_t> ranges;
  SmallVector<unsigned> parallel, reduction;
  unsigned column = 0;
  int64_t width = 0;
  SmallVector<VectorAccess> access; // per input
};

std::optional<Shape> shapeOf(linalg::GenericOp op, int64_t vectorBytes) {
  if (vectorBytes <= 0 || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() < 2 || op.getNumReductionLoops() == 0 || !vectorizableBody(*op.getBlock()))
    return std::nullopt;
  Shape s;
  s.ranges = op.getStaticLoopRanges();
  if (llvm::any_of(s.ranges, ShapedType::isDynamic))
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  s.column = op.getNumLoops() - 1;
  if (iterators[s.column] != utils::IteratorType::parallel)
    return std::nullopt;
  for (unsigned d = 0; d < iterators.size(); ++d)
    (iterators[d] == utils::IteratorType::parallel ? s.parallel : s.reduction).push_back(d);
  // The output is indexed by the parallel loops, in order.
  AffineMap outMap = op.getIndexingMapsArray().back();
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() != s.parallel.size())
    return std::nullopt;
  for (auto [r, d] : llvm::enumerate(s.parallel))
    if (outMap.getDimPosition(r) != d)
      return std::nullopt;
  // W elements of the widest input read along the columns fill `vectorBytes`.
  int64_t widest = 0;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(in->get().getType());
    if (!type)
      return std::nullopt;
    if (op.getMatchingIndexingMap(in).isFunctionOfDim(s.column))
      widest = std::max<int64_t>(widest, type.getElementTypeBitWidth() / 8);
  }
  if (widest == 0 || vectorBytes % widest)
    return std::nullopt;
  s.width = vectorBytes / widest;
  if (s.width < 2 || s.ranges[s.column] % s.width)
    return std::nullopt;
  for (OpOperand *in : op.getDpsInputOperands()) {
    std::optional<VectorAccess> a =
        vectorAccessOf(in->get(), op.getMatchingIndexingMap(in), s.column, s.width);
    if (!a)
      return std::nullopt;
    s.access.push_back(*a);
  }
  std::optional<VectorAccess> out = vectorAccessOf(op.getDpsInits()[0], outMap, s.column, s.width);
  if (out != VectorAccess::Vector)
    return std::nullopt;
  return s;
}

/// Whether `e` can run on the column reduction's registers: elementwise over
/// the same shape, reading `current` (the group's latest result) at the
/// same element, writing nothing the group reads or wrote before.
bool isEpilogue(linalg::GenericOp e, Value current, int64_t width,
                const llvm::SmallPtrSetImpl<Value> &groupRoots) {
  auto shape = cast<MemRefType>(current.getType()).getShape();
  if (!e.hasPureBufferSemantics() || e.getNumDpsInits() != 1 ||
      e.getNumParallelLoops() != e.getNumLoops() || e.getNumLoops() != shape.size() ||
      e.getStaticLoopRanges() != SmallVector<int64_t>(shape) || !vectorizableBody(*e.getBlock()))
    return false;
  bool readsCurrent = false;
  for (OpOperand &operand : e->getOpOperands()) {
    AffineMap map = e.getMatchingIndexingMap(&operand);
    if (!map.isIdentity() ||
        vectorAccessOf(operand.get(), map, shape.size() - 1, width) != VectorAccess::Vector)
      return false;
    bool isCurrent = operand.get() == current && !e.isDpsInit(&operand);
    readsCurrent |= isCurrent;
    if (!isCurrent && groupRoots.contains(rootOf(operand.get())))
      return false;
  }
  return readsCurrent;
}

/// Whether `at` (after `op`) may move before it: an allocation, a constant
/// or a view, whose operands are defined before `op` or by ops in `moved`.
/// With `anyOp`, only the operands are checked (an epilogue).
bool canMoveBefore(Operation *at, Operation *op, const llvm::SmallPtrSetImpl<Operation *> &moved,
                   bool anyOp = false) {
  if (!anyOp && (at->getNumRegions() || !(isa<memref::AllocOp>(at) || isMemoryEffectFree(at))))
    return false;
  llvm::SetVector<Value> used(at->getOperands().begin(), at->getOperands().end());
  for (Region &region : at->getRegions())
    getUsedValuesDefinedAbove(region, used); // a body's captured scalars
  return llvm::all_of(used, [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || moved.contains(def) || def->getBlock() != op->getBlock() ||
           def->isBeforeInBlock(op);
  });
}

/// Whether anything but the ops of `group` uses the buffer `v` views.
bool usedOutside(Value v, const llvm::SmallPtrSetImpl<Operation *> &group) {
  Value root = rootOf(v);
  if (!root.getDefiningOp<memref::AllocOp>())
    return true;
  return llvm::any_of(root.getUsers(), [&](Operation *user) { return !group.contains(user); });
}

/// The ops one column-reduction kernel replaces, and what it stores.
struct Group {
  linalg::FillOp fill; // folded into the sums' start, if any
  SmallVector<linalg::GenericOp> epilogue;
  SmallVector<Operation *> hoisted; // moved before the kernel
  SmallVector<Value> results;       // the reduction's output, then each epilogue's
  SmallVector<bool> store;          // per result
};

Group groupOf(linalg::GenericOp op, const Shape &s) {
  Group g;
  Value out = op.getDpsInits()[0];
  // Buffers the group reads or writes: an epilogue must not write them.
  llvm::SmallPtrSet<Value, 8> groupRoots;
  for (Value v : op->getOperands())
    groupRoots.insert(rootOf(v));
  // The elementwise ops that follow, and the allocations, constants and
  // views between them (moved before the kernel, which uses them). Up to
  // kMaxPassed independent ops in between are passed over (a norm's second
  // column sum before the first one's accumulation): the epilogue moves
  // before them, so it must touch nothing they touch.
  SmallVector<Operation *> pending, passed;
  llvm::SmallPtrSet<Operation *, 8> movable;
  Value current = out;
  auto independentOfPassed = [&](Operation *e) {
    return llvm::none_of(passed, [&](Operation *p) {
      return llvm::any_of(e->getOperands(), [&](Value v) { return mentions(p, rootOf(v)); });
    });
  };
  for (Operation *at = op->getNextNode(); at; at = at->getNextNode()) {
    if (canMoveBefore(at, op, movable)) {
      pending.push_back(at);
      movable.insert(at);
      continue;
    }
    auto e = dyn_cast<linalg::GenericOp>(at);
    if (!e || !isEpilogue(e, current, s.width, groupRoots) || !independentOfPassed(e) ||
        !canMoveBefore(e, op, movable, /*anyOp=*/true)) {
      bool independent = isa<linalg::LinalgOp>(at) &&
                         llvm::none_of(groupRoots, [&](Value r) { return mentions(at, r); });
      if (!independent || passed.size() == kMaxPassed)
        break;
      passed.push_back(at);
      continue;
    }
    llvm::append_range(g.hoisted, pending);
    pending.clear();
    g.epilogue.push_back(e);
    current = e.getDpsInits()[0];
    for (Value v : e->getOperands())
      groupRoots.insert(rootOf(v));
  }
  g.fill = initialFill(op, out);
  llvm::SmallPtrSet<Operation *, 8> members{op};
  if (g.fill)
    members.insert(g.fill);
  g.results.push_back(out);
  for (linalg::GenericOp e : g.epilogue) {
    members.insert(e);
    g.results.push_back(e.getDpsInits()[0]);
  }
  // Each result is stored where something else reads it; the last always.
  for (auto [i, v] : llvm::enumerate(g.results))
    g.store.push_back(i + 1 == g.results.size() || usedOutside(v, members));
  return g;
}

/// Emits the kernel of a column reduction `op` of shape `s`.
class KernelBuilder {
public:
  KernelBuilder(IRRewriter &rewriter, linalg::GenericOp op, const Shape &s)
      : rewriter(rewriter), loc(op.getLoc()), op(op), s(s), ivs(s.ranges.size()) {}

  scf::ParallelOp build(Group &g) {
    rewriter.setInsertionPoint(op);
    int64_t total = 1;
    for (unsigned d : s.parallel)
      total *= s.ranges[d];
    auto chunks = scf::ParallelOp::create(rewriter, loc, ValueRange{index(0)},
                                          ValueRange{index(total / s.width)}, ValueRange{index(1)});
    rewriter.setInsertionPointToStart(chunks.getBody());
    // The chunk's first output element, as parallel loop indices
    // (row-major; neighbouring threads take neighbouring columns).
    Value rest = arith::MulIOp::create(rewriter, loc, chunks.getInductionVars()[0], index(s.width));
    for (int64_t k = static_cast<int64_t>(s.parallel.size()) - 1; k >= 0; --k) {
      unsigned d = s.parallel[k];
      Value size = index(s.ranges[d]);
      ivs[d] = k ? arith::RemUIOp::create(rewriter, loc, rest, size).getResult() : rest;
      if (k)
        rest = arith::DivUIOp::create(rewriter, loc, rest, size);
    }
    for (unsigned d : s.parallel)
      outAt.push_back(ivs[d]);
    Value out = op.getDpsInits()[0];
    Type outElement = cast<MemRefType>(out.getType()).getElementType();
    Value sums =
        g.fill ? vector::BroadcastOp::create(rewriter, loc, VectorType::get({s.width}, outElement),
                                             g.fill.getDpsInputs()[0])
                     .getResult()
               : loadChunk(rewriter, loc, out, outAt, VectorAccess::Vector, s.width);
    Value value = reduce(0, sums);
    if (g.store[0])
      storeChunk(value, out);
    Value current = out;
    for (auto [i, e] : llvm::enumerate(g.epilogue)) {
      value = applyEpilogue(e, current, value);
      current = e.getDpsInits()[0];
      if (g.store[i + 1])
        storeChunk(value, current);
    }
    return chunks;
  }

private:
  IRRewriter &rewriter;
  Location loc;
  linalg::GenericOp op;
  const Shape &s;
  SmallVector<Value> ivs; // per loop: its index where the code is emitted
  SmallVector<Value> outAt;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); }

  /// linalg.index of loop d: the chunk's columns, else the loop's index.
  Value positionOf(unsigned d) {
    if (d == s.column)
      return chunkPositions(rewriter, loc, ivs[d], s.width);
    return vector::BroadcastOp::create(rewriter, loc,
                                       VectorType::get({s.width}, rewriter.getIndexType()), ivs[d]);
  }

  /// The reduction loops from the k-th on, in the op's order, the innermost
  /// a group of rows at a time: their loads first, then their adds in order.
  Value reduce(size_t k, Value init) {
    unsigned d = s.reduction[k];
    bool innermost = k + 1 == s.reduction.size();
    int64_t step = innermost ? rowsPerStep(s.ranges[d]) : 1;
    auto loop = scf::ForOp::create(rewriter, loc, index(0), index(s.ranges[d]), index(step),
                                   ValueRange{init},
                                   [&](OpBuilder &, Location, Value iv, ValueRange carried) {
                                     Value acc = carried[0];
                                     if (innermost) {
                                       acc = addRows(d, iv, step, acc);
                                     } else {
                                       ivs[d] = iv;
                                       acc = reduce(k + 1, acc);
                                     }
                                     scf::YieldOp::create(rewriter, loc, acc);
                                   });
    return loop.getResult(0);
  }

  /// Rows iv .. iv + step - 1 of loop d added to `acc`.
  Value addRows(unsigned d, Value iv, int64_t step, Value acc) {
    Block &body = *op.getBlock();
    SmallVector<IRMapping> rows(step);
    SmallVector<Value> rowIvs;
    for (int64_t u = 0; u < step; ++u) {
      ivs[d] = u ? arith::AddIOp::create(rewriter, loc, iv, index(u)).getResult() : iv;
      rowIvs.push_back(ivs[d]);
      for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
        BlockArgument arg = body.getArgument(in->getOperandNumber());
        if (arg.use_empty())
          continue;
        AffineMap map = op.getMatchingIndexingMap(in);
        SmallVector<Value> at;
        for (unsigned r = 0; r < map.getNumResults(); ++r)
          at.push_back(ivs[map.getDimPosition(r)]);
        rows[u].map(arg, loadChunk(rewriter, loc, in->get(), at, s.access[i], s.width));
      }
    }
    for (auto [row, rowIv] : llvm::zip(rows, rowIvs)) {
      ivs[d] = rowIv;
      row.map(body.getArguments().back(), acc);
      acc = cloneBodyOnVectors(rewriter, loc, body, row, s.width,
                               [&](unsigned p) { return positionOf(p); })[0];
    }
    return acc;
  }

  /// `e`'s body on the chunk, `current`'s value being `value`.
  Value applyEpilogue(linalg::GenericOp e, Value current, Value value) {
    Block &body = *e.getBlock();
    IRMapping mapping;
    for (OpOperand &operand : e->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      bool isCurrent = operand.get() == current && !e.isDpsInit(&operand);
      mapping.map(arg, isCurrent ? value
                                 : loadChunk(rewriter, loc, operand.get(), outAt,
                                             VectorAccess::Vector, s.width));
    }
    // The epilogue's loops are the reduction's parallel ones.
    return cloneBodyOnVectors(rewriter, loc, body, mapping, s.width,
                              [&](unsigned p) { return positionOf(s.parallel[p]); })[0];
  }

  void storeChunk(Value v, Value buffer) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    vector::StoreOp::create(rewriter, loc, v, buffer, outAt, /*nontemporal=*/false,
                            vectorAlignment(element, s.width));
  }
};

} // namespace

scf::ParallelOp reduceColumnsOnVectors(IRRewriter &rewriter, linalg::GenericOp op,
                                       int64_t vectorBytes) {
  std::optional<Shape> shape = shapeOf(op, vectorBytes);
  if (!shape)
    return nullptr;
  Group g = groupOf(op, *shape);
  for (Operation *h : g.hoisted)
    h->moveBefore(op);
  scf::ParallelOp chunks = KernelBuilder(rewriter, op, *shape).build(g);
  for (linalg::GenericOp e : llvm::reverse(g.epilogue))
    rewriter.eraseOp(e);
  rewriter.eraseOp(op);
  if (g.fill)
    rewriter.eraseOp(g.fill);
  // Buffers no one reads any more.
  for (Value v : g.results)
    if (auto alloc = rootOf(v).getDefiningOp<memref::AllocOp>(); alloc && alloc->use_empty())
      rewriter.eraseOp(alloc);
  return chunks;
}

} // namespace mt
