//===- VectorizeRows.cpp - a lane's columns of a row as 16-byte vectors ----===//
//
// A warp-per-row kernel whose lanes load one f32 each issues 4x the load
// instructions of one whose lanes load 16 bytes, and memory-bound row
// kernels (norms, softmax, their gradients) are limited by those. Lane l
// takes columns [W l, W l + W), then W (l + 32), ...; what the loop sums
// is summed per vector element and the W partial sums are added in order
// afterwards, so results stay the same from run to run.
//
//===----------------------------------------------------------------------===//
#include "VectorizeRows.h"

#include "VectorizeElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace mt {
namespace {

/// How the loop body uses the column: only as the last index of loads and
/// stores whose other indices do not vary along the row ("vector accesses"),
/// or in arithmetic.
struct Plan {
  llvm::DenseSet<Value> varying;           // values that differ from column to column
  SmallVector<Operation *> vectorAccesses; // loads and stores at [..., column]
  int64_t widest = 0;                      // bytes of the widest element accessed
};

std::optional<Plan> planBody(scf::ForOp loop) {
  Plan plan;
  Value column = loop.getInductionVar();
  plan.varying.insert(column);
  for (BlockArgument acc : loop.getRegionIterArgs())
    if (!isa<MemRefType>(acc.getType()))
      plan.varying.insert(acc);
  auto varies = [&](Value v) { return plan.varying.contains(v); };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions())
      return std::nullopt;
    auto accessAt = [&](Value memref, ValueRange indices) -> std::optional<bool> {
      auto type = cast<MemRefType>(memref.getType());
      bool lastIsColumn = !indices.empty() && indices.back() == column;
      if (llvm::any_of(indices.drop_back(lastIsColumn ? 1 : 0), varies) || varies(memref))
        return std::nullopt; // a gather along the row
      if (!lastIsColumn)
        return false;
      // i1 (a padding mask) is a byte in memory but one bit in a vector: a
      // vector load would read packed bits.
      if (!type.getElementType().isIntOrFloat() || type.getElementTypeBitWidth() % 8)
        return std::nullopt;
      plan.widest = std::max<int64_t>(plan.widest, type.getElementTypeBitWidth() / 8);
      plan.vectorAccesses.push_back(&op);
      return true;
    };
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      std::optional<bool> vector = accessAt(load.getMemRef(), load.getIndices());
      if (!vector)
        return std::nullopt;
      if (*vector)
        plan.varying.insert(load.getResult());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      std::optional<bool> vector = accessAt(store.getMemRef(), store.getIndices());
      if (!vector || (!*vector && varies(store.getValue())))
        return std::nullopt; // a varying value stored at one place
      continue;
    }
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return std::nullopt;
    if (llvm::any_of(op.getOperands(), varies))
      for (Value r : op.getResults())
        plan.varying.insert(r);
  }
  if (plan.vectorAccesses.empty())
    return std::nullopt;
  return plan;
}

/// Each carried sum or maximum of the vectorized loop `chunks`: its W
/// elements combined in order (the other results as they are).
SmallVector<Value> combineElements(IRRewriter &rewriter, Location loc, scf::ForOp chunks,
                                   ArrayRef<std::optional<gpu::AllReduceOperation>> kinds,
                                   int64_t width) {
  SmallVector<Value> partials;
  for (auto [result, kind] : llvm::zip(chunks.getResults(), kinds)) {
    if (!kind) {
      partials.push_back(result);
      continue;
    }
    Value total = vector::ExtractOp::create(rewriter, loc, result, int64_t(0));
    for (int64_t e = 1; e < width; ++e) {
      Value next = vector::ExtractOp::create(rewriter, loc, result, e);
      total = *kind == gpu::AllReduceOperation::ADD
                  ? arith::AddFOp::create(rewriter, loc, total, next).getResult()
                  : arith::MaximumFOp::create(rewriter, loc, total, next).getResult();
    }
    partials.push_back(total);
  }
  return partials;
}

} // namespace

std::optional<SmallVector<Value>>
vectorizeAlongRow(IRRewriter &rewriter, scf::ForOp loop, Value lane, int64_t warp,
                  ArrayRef<std::optional<gpu::AllReduceOperation>> kinds, int64_t vectorBytes) {
  auto upper = loop.getUpperBound().getDefiningOp<arith::ConstantIndexOp>();
  std::optional<Plan> plan = planBody(loop);
  if (vectorBytes <= 0 || !upper || !plan || vectorBytes % plan->widest)
    return std::nullopt;
  int64_t width = vectorBytes / plan->widest;
  if (width < 2 || upper.value() % width)
    return std::nullopt;
  for (Operation *access : plan->vectorAccesses) {
    Value memref = isa<memref::LoadOp>(access) ? cast<memref::LoadOp>(access).getMemRef()
                                               : cast<memref::StoreOp>(access).getMemRef();
    if (!chunksAligned(memref, width))
      return std::nullopt;
  }
  auto vectorOf = [&](Type element) { return VectorType::get({width}, element); };
  auto alignmentOf = [&](Type element) {
    return llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
  };

  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value start = arith::MulIOp::create(rewriter, loc, lane, index(width));
  SmallVector<Value> inits;
  for (auto [init, kind] : llvm::zip(loop.getInitArgs(), kinds))
    inits.push_back(
        kind ? vector::BroadcastOp::create(rewriter, loc, vectorOf(init.getType()), init) : init);
  auto chunks = scf::ForOp::create(rewriter, loc, start, upper, index(warp * width), inits);
  if (!chunks.getBody()->empty())
    rewriter.eraseOp(chunks.getBody()->getTerminator());

  rewriter.setInsertionPointToStart(chunks.getBody());
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), chunks.getInductionVar());
  for (auto [old, now] : llvm::zip(loop.getRegionIterArgs(), chunks.getRegionIterArgs()))
    mapping.map(old, now);
  Value columns; // the lane's W column indices, made when arithmetic needs them
  // The vector form of a varying value, or a uniform one broadcast.
  auto asVector = [&](Value v) -> Value {
    if (v == loop.getInductionVar()) {
      if (!columns) {
        Value first = vector::BroadcastOp::create(rewriter, loc, vectorOf(v.getType()),
                                                  chunks.getInductionVar());
        // 0, 1, ..., W - 1 (a constant: vector.step has no NVVM lowering).
        SmallVector<APInt> offsets;
        for (int64_t e = 0; e < width; ++e)
          offsets.push_back(APInt(IndexType::kInternalStorageBitWidth, e));
        Value step = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(vectorOf(v.getType()), offsets));
        columns = arith::AddIOp::create(rewriter, loc, first, step);
      }
      return columns;
    }
    Value mapped = mapping.lookupOrDefault(v);
    if (plan->varying.contains(v))
      return mapped;
    return vector::BroadcastOp::create(rewriter, loc, vectorOf(mapped.getType()), mapped);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op); load && plan->varying.contains(load)) {
      SmallVector<Value> at;
      for (Value i : load.getIndices())
        at.push_back(mapping.lookupOrDefault(i));
      Type element = load.getType();
      mapping.map(load.getResult(),
                  vector::LoadOp::create(rewriter, loc, vectorOf(element),
                                         mapping.lookupOrDefault(load.getMemRef()), at,
                                         /*nontemporal=*/false, alignmentOf(element)));
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && !store.getIndices().empty() &&
        store.getIndices().back() == loop.getInductionVar()) {
      SmallVector<Value> at;
      for (Value i : store.getIndices())
        at.push_back(mapping.lookupOrDefault(i));
      Type element = store.getValue().getType();
      vector::StoreOp::create(rewriter, loc, asVector(store.getValue()),
                              mapping.lookupOrDefault(store.getMemRef()), at,
                              /*nontemporal=*/false, alignmentOf(element));
      continue;
    }
    if (!llvm::any_of(op.getResults(), [&](Value r) { return plan->varying.contains(r); })) {
      rewriter.clone(op, mapping); // the same in every column
      continue;
    }
    IRMapping operands;
    for (Value v : op.getOperands())
      operands.map(v, asVector(v));
    Operation *copy = rewriter.clone(op, operands);
    for (OpResult result : copy->getResults())
      result.setType(vectorOf(result.getType()));
    for (auto [old, now] : llvm::zip(op.getResults(), copy->getResults()))
      mapping.map(old, now);
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> yielded;
  for (Value v : yield.getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  scf::YieldOp::create(rewriter, loc, yielded);

  rewriter.setInsertionPointAfter(chunks);
  SmallVector<Value> partials = combineElements(rewriter, loc, chunks, kinds, width);
  rewriter.replaceOp(loop, partials);
  return partials;
}

} // namespace mt
