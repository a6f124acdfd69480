//===- RowRegisters.cpp - a warp's row kept in registers between passes ----===//
//
// A row kernel walks its row once per reduction: a softmax loads the row
// for its maximum, again for the exponentials (which it stores), and loads
// those back to divide them. On an H100 GPT-2's softmax ran at 23% of the
// bandwidth and the layer norm at 12% (bench/gpu/results/
// 2026-11-27-h100-run9.log). A lane holds only a few 16-byte chunks of a
// row of GPT-2's widths (1024 bf16: 4 chunks), so its loops along the row
// are unrolled and each chunk is loaded once.
//
//===----------------------------------------------------------------------===//
#include "RowRegisters.h"

#include "BufferRanges.h"
#include "WarpRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace mt {
namespace {

/// The loop's trip count when every lane makes the same number of trips:
/// from the lane's first column (`lane` x W, by 32 W) to a constant width
/// that the step divides.
std::optional<int64_t> lanesTrips(scf::ForOp loop, Value lane) {
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!upper || !step || *step <= 0 || *upper % *step)
    return std::nullopt;
  Value first = loop.getLowerBound();
  int64_t width = 1;
  if (auto mul = first.getDefiningOp<arith::MulIOp>()) {
    std::optional<int64_t> w = getConstantIntValue(mul.getRhs());
    if (!w || mul.getLhs() != lane)
      return std::nullopt;
    width = *w;
  } else if (first != lane) {
    return std::nullopt;
  }
  if (*step != kWarpSize * width)
    return std::nullopt;
  return *upper / *step;
}

/// Replaces `loop` by `trips` copies of its body, column = first + k step.
void unroll(IRRewriter &rewriter, scf::ForOp loop, int64_t trips) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  int64_t step = *getConstantIntValue(loop.getStep());
  SmallVector<Value> carried(loop.getInitArgs());
  Block *body = loop.getBody();
  for (int64_t k = 0; k < trips; ++k) {
    Value column = loop.getLowerBound();
    if (k)
      column = arith::AddIOp::create(rewriter, loc, column,
                                     arith::ConstantIndexOp::create(rewriter, loc, k * step));
    IRMapping m;
    m.map(loop.getInductionVar(), column);
    for (auto [arg, value] : llvm::zip(loop.getRegionIterArgs(), carried))
      m.map(arg, value);
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, m);
    for (auto [i, y] : llvm::enumerate(body->getTerminator()->getOperands()))
      carried[i] = m.lookupOrDefault(y);
  }
  rewriter.replaceOp(loop, carried);
}

/// An index as a value plus a constant (`lane * W + 256` -> lane * W, 256).
std::pair<Value, int64_t> splitConstant(Value index) {
  if (auto add = index.getDefiningOp<arith::AddIOp>())
    if (std::optional<int64_t> c = getConstantIntValue(add.getRhs()))
      return {add.getLhs(), *c};
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return {Value(), *c};
  return {index, 0};
}

/// Whether two index values are computed alike (each pass computes its
/// lane's first column again: `lane * W`).
bool sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  std::optional<int64_t> ca = getConstantIntValue(a), cb = getConstantIntValue(b);
  if (ca || cb)
    return ca == cb;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || x->getName() != y->getName() || !isa<arith::AddIOp, arith::MulIOp>(x))
    return false;
  return sameIndex(x->getOperand(0), y->getOperand(0)) &&
         sameIndex(x->getOperand(1), y->getOperand(1));
}

bool sameIndices(ArrayRef<Value> a, ArrayRef<Value> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip(a, b), [](auto p) { return sameIndex(std::get<0>(p), std::get<1>(p)); });
}

/// A vector's place: its buffer, its leading indices, its last index as a
/// value plus a constant, its element count.
struct Chunk {
  Value memref;
  SmallVector<Value> leading;
  Value base;
  int64_t offset = 0, size = 0;

  Chunk(Value memref, ValueRange indices, VectorType type) : memref(memref) {
    leading.assign(indices.begin(), std::prev(indices.end()));
    std::tie(base, offset) = splitConstant(indices.back());
    size = type.getNumElements();
  }

  bool same(const Chunk &o) const {
    return memref == o.memref && sameIndices(leading, o.leading) && sameIndex(base, o.base) &&
           offset == o.offset && size == o.size;
  }

  /// Whether a write of this chunk may change bytes of `o`: not when both
  /// are one buffer's elements in one row, their columns apart.
  bool mayTouch(const Chunk &o) const {
    if (memref == o.memref && sameIndices(leading, o.leading) && sameIndex(base, o.base))
      return offset < o.offset + o.size && o.offset < offset + size;
    return mayOverlap(rangeOf(memref), rangeOf(o.memref));
  }
};

/// Loads of a chunk a lane loaded or stored before are that value.
void forwardChunks(IRRewriter &rewriter, Block *body) {
  SmallVector<std::pair<Chunk, Value>> known;
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator())) {
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      Chunk c(load.getBase(), load.getIndices(), load.getVectorType());
      auto *hit = llvm::find_if(known, [&](auto &k) { return k.first.same(c); });
      if (hit != known.end() && hit->second.getType() == load.getType()) {
        rewriter.replaceOp(load, hit->second);
        continue;
      }
      known.push_back({c, load.getResult()});
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      Chunk c(store.getBase(), store.getIndices(), store.getVectorType());
      llvm::erase_if(known, [&](auto &k) { return c.mayTouch(k.first); });
      known.push_back({c, store.getValueToStore()});
    } else if (!isMemoryEffectFree(&op) && !isa<gpu::SubgroupReduceOp>(op)) {
      // A scalar store, a call, a loop that was not unrolled: it may write.
      bool writes = true;
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
        writes = !effects.onlyHasEffect<MemoryEffects::Read>();
      if (writes || op.getNumRegions())
        known.clear();
    }
  }
}

} // namespace

void keepRowInRegisters(IRRewriter &rewriter, Block *rowBody, Value lane, int64_t maxChunks) {
  SmallVector<std::pair<scf::ForOp, int64_t>> loops;
  for (auto loop : rowBody->getOps<scf::ForOp>())
    if (std::optional<int64_t> trips = lanesTrips(loop, lane); trips && *trips <= maxChunks)
      loops.push_back({loop, *trips});
  if (loops.empty())
    return;
  for (auto [loop, trips] : loops)
    unroll(rewriter, loop, trips);
  forwardChunks(rewriter, rowBody);
}

} // namespace mt
