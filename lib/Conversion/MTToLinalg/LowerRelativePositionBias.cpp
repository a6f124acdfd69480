//===- LowerRelativePositionBias.cpp - T5's relative attention bias -------===//
//
// Both directions go through a [heads, distance] matrix (distance = key -
// query, offset to start at 0): the bias of each head and distance in the
// forward, the gradient summed along each diagonal in the backward. The
// buckets of the distances are a compile-time constant.
//
//===----------------------------------------------------------------------===//
#include "Lowerings.h"

#include "mt/Support/RelativePositionBuckets.h"

using namespace mlir;

namespace mt {
namespace {

AffineMap mapOf(MLIRContext *ctx, unsigned numDims, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// The bucket of distance `d` (an index, key - query) in integer arithmetic:
/// the logarithmic buckets become compile-time thresholds (the smallest
/// distance each bucket starts at, found with the f32 formula of
/// RelativePositionBuckets.h), so a kernel needs neither a logarithm that
/// could round differently on another target nor a table in memory.
struct BucketCode {
  int64_t numBuckets, maxDistance, reach;
  bool bidirectional;

  Value emit(OpBuilder &b, Location l, Value d) const {
    auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v).getResult(); };
    Value zero = constant(0);
    Value magnitude, base = zero;
    int64_t n = numBuckets;
    if (bidirectional) {
      n /= 2;
      Value after = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, d, zero);
      base = arith::SelectOp::create(b, l, after, constant(n), zero);
      Value negated = arith::SubIOp::create(b, l, zero, d);
      magnitude = arith::SelectOp::create(b, l, after, d, negated);
    } else {
      Value before = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, d, zero);
      magnitude = arith::SelectOp::create(b, l, before, arith::SubIOp::create(b, l, zero, d), zero);
    }
    // bucket = magnitude below the exact range, else exact + the thresholds passed.
    int64_t exact = exactRelativeBuckets(numBuckets, bidirectional);
    Value bucket = constant(exact);
    int64_t r = exact;
    for (int64_t k = exact + 1; k < n; ++k) {
      while (r <= reach && magnitudeBucket(r) < k)
        ++r;
      if (r > reach)
        break; // no distance this far apart
      Value passed = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, magnitude, constant(r));
      bucket = arith::AddIOp::create(b, l, bucket,
                                     arith::SelectOp::create(b, l, passed, constant(1), zero));
    }
    Value small =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, magnitude, constant(exact));
    bucket = arith::SelectOp::create(b, l, small, magnitude, bucket);
    return arith::AddIOp::create(b, l, base, bucket);
  }

  /// The bucket of a non-negative distance within one direction's buckets.
  int64_t magnitudeBucket(int64_t r) const {
    // One direction of a bidirectional table is a causal table of half the
    // buckets, read at -r.
    return bidirectional ? relativePositionBucket(-r, numBuckets / 2, false, maxDistance)
                         : relativePositionBucket(-r, numBuckets, false, maxDistance);
  }
};

Value indexOf(OpBuilder &b, Location l, unsigned dim) { return linalg::IndexOp::create(b, l, dim); }

/// The bias at a run-time position (a KV cache's): each element finds its
/// bucket, distance j - position - i, in the kernel (decoding reads one
/// query row, so there is no [heads, distance] matrix worth building).
Lowered lowerBiasAtPosition(RelativePositionBiasOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  Type stored = type.getElementType(), t = computeType(stored);
  // Every logarithmic threshold up to max_distance: the distances reach as
  // far as the position does.
  BucketCode code{tensorOf(op.getTable()).getDimSize(0), op.getMaxDistanceAttr().getInt(),
                  int64_t(1) << 40, op.getBidirectional()};
  Value position = clampedIndexOf(lb.builder(), lb.location(), op.getPosition(), 0, 1ll << 40);
  Value table = op.getTable();
  return SmallVector<Value>{lb.generic(
      op.getInput(), lb.identity(4), lb.empty(type.getShape(), stored), lb.identity(4),
      lb.parallel(4), [&](OpBuilder &b, Location l, ValueRange a) {
        Value query = arith::AddIOp::create(b, l, indexOf(b, l, 2), position);
        Value bucket = code.emit(b, l, arith::SubIOp::create(b, l, indexOf(b, l, 3), query));
        Value v = tensor::ExtractOp::create(b, l, table, ValueRange{bucket, indexOf(b, l, 1)});
        Value sum = arith::AddFOp::create(b, l, castFloat(b, l, a[0], t), castFloat(b, l, v, t));
        return castFloat(b, l, sum, stored);
      })};
}

Lowered lowerBias(RelativePositionBiasOp op, LinalgBuilder &lb) {
  if (op.getPosition())
    return lowerBiasAtPosition(op, lb);
  auto type = tensorOf(op.getInput());
  Type stored = type.getElementType(), t = computeType(stored);
  int64_t heads = type.getDimSize(1), queries = type.getDimSize(2), keys = type.getDimSize(3);
  int64_t distances = queries + keys - 1;
  BucketCode code{tensorOf(op.getTable()).getDimSize(0), op.getMaxDistanceAttr().getInt(),
                  std::max(queries, keys) - 1, op.getBidirectional()};
  Value table = op.getTable();
  Value offset = lb.index(queries - 1);
  // byDistance[h, d] = table[bucket(d - (queries - 1)), h]
  Value byDistance = lb.generic(
      ValueRange{}, {}, lb.empty({heads, distances}, t), lb.identity(2), lb.parallel(2),
      [&](OpBuilder &b, Location l, ValueRange) {
        Value bucket = code.emit(b, l, arith::SubIOp::create(b, l, indexOf(b, l, 1), offset));
        Value v = tensor::ExtractOp::create(b, l, table, ValueRange{bucket, indexOf(b, l, 0)});
        return castFloat(b, l, v, t);
      });
  return SmallVector<Value>{lb.generic(
      op.getInput(), lb.identity(4), lb.empty(type.getShape(), stored), lb.identity(4),
      lb.parallel(4), [&](OpBuilder &b, Location l, ValueRange a) {
        Value d = arith::AddIOp::create(
            b, l, arith::SubIOp::create(b, l, indexOf(b, l, 3), indexOf(b, l, 2)), offset);
        Value bias = tensor::ExtractOp::create(b, l, byDistance, ValueRange{indexOf(b, l, 1), d});
        return arith::AddFOp::create(b, l, a[0], bias).getResult();
      })};
}

Lowered lowerBiasGrad(RelativePositionBiasGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getGrad());
  Type stored = type.getElementType(), t = computeType(stored);
  int64_t heads = type.getDimSize(1), queries = type.getDimSize(2), keys = type.getDimSize(3);
  int64_t distances = queries + keys - 1;
  int64_t numBuckets = tensorOf(op.getResult()).getDimSize(0);
  MLIRContext *ctx = lb.builder().getContext();
  Value grad = op.getGrad();
  using utils::IteratorType;
  // byDistance[h, d] = sum over batch b and query i of grad[b, h, i, i + d - (queries - 1)]
  // (loops h, d, b, i; an empty [batch, queries] tensor, never read, gives
  // b and i their ranges).
  Value offset = lb.index(queries - 1), zero = lb.index(0), end = lb.index(keys);
  Value ranges = lb.empty({type.getDimSize(0), queries}, t);
  Value byDistance = lb.generic(
      ranges, mapOf(ctx, 4, {2, 3}), lb.filled({heads, distances}, t, 0.0), mapOf(ctx, 4, {0, 1}),
      {IteratorType::parallel, IteratorType::parallel, IteratorType::reduction,
       IteratorType::reduction},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value j = arith::SubIOp::create(
            b, l, arith::AddIOp::create(b, l, indexOf(b, l, 3), indexOf(b, l, 1)), offset);
        Value inside = arith::AndIOp::create(
            b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, j, zero),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, end));
        Value column = arith::SelectOp::create(b, l, inside, j, zero);
        Value g = tensor::ExtractOp::create(
            b, l, grad, ValueRange{indexOf(b, l, 2), indexOf(b, l, 0), indexOf(b, l, 3), column});
        Value zeroF = arith::ConstantOp::create(b, l, b.getFloatAttr(t, 0.0));
        Value add = arith::SelectOp::create(b, l, inside, castFloat(b, l, g, t), zeroF);
        return arith::AddFOp::create(b, l, a[1], add).getResult();
      });
  // result[u, h] = sum over distances d in bucket u of byDistance[h, d] (loops u, h, d).
  BucketCode code{numBuckets, op.getMaxDistanceAttr().getInt(), std::max(queries, keys) - 1,
                  op.getBidirectional()};
  Value sums = lb.generic(
      byDistance, mapOf(ctx, 3, {1, 2}), lb.filled({numBuckets, heads}, t, 0.0),
      mapOf(ctx, 3, {0, 1}),
      {IteratorType::parallel, IteratorType::parallel, IteratorType::reduction},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value bucket = code.emit(b, l, arith::SubIOp::create(b, l, indexOf(b, l, 2), offset));
        Value mine =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, bucket, indexOf(b, l, 0));
        Value zeroF = arith::ConstantOp::create(b, l, b.getFloatAttr(t, 0.0));
        Value add = arith::SelectOp::create(b, l, mine, a[0], zeroF);
        return arith::AddFOp::create(b, l, a[1], add).getResult();
      });
  return SmallVector<Value>{lb.convertElements(sums, stored)};
}

} // namespace

void populateRelativePositionLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<RelativePositionBiasOp>(patterns, lowerBias);
  addLowering<RelativePositionBiasGradOp>(patterns, lowerBiasGrad);
}

} // namespace mt
