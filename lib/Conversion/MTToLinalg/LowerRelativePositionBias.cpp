//===- LowerRelativePositionBias.cpp - T5's relative attention bias -------===//
//
// Both directions go through a [heads, distance] matrix (distance = key -
// query, offset to start at 0): the bias of each head and distance in the
// forward, the gradient summed along each diagonal in the backward. The
// buckets of the distances are a compile-time constant.
//
//===----------------------------------------------------------------------===//
#include "Lowerings.h"

#include "mt/Dialect/MT/IR/RelativePositionBuckets.h"

using namespace mlir;

namespace mt {
namespace {

AffineMap mapOf(MLIRContext *ctx, unsigned numDims, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// i32 [queries + keys - 1]: the bucket of distance d - (queries - 1).
Value bucketsOfDistances(LinalgBuilder &lb, int64_t queries, int64_t keys, int64_t numBuckets,
                         bool bidirectional, int64_t maxDistance) {
  std::vector<int32_t> buckets =
      relativePositionBuckets(queries, keys, numBuckets, bidirectional, maxDistance);
  auto type = RankedTensorType::get({static_cast<int64_t>(buckets.size())},
                                    lb.builder().getI32Type());
  return arith::ConstantOp::create(lb.builder(), lb.location(),
                                   DenseIntElementsAttr::get(type, ArrayRef<int32_t>(buckets)));
}

Value indexOf(OpBuilder &b, Location l, unsigned dim) { return linalg::IndexOp::create(b, l, dim); }

Lowered lowerBias(RelativePositionBiasOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  Type stored = type.getElementType(), t = computeType(stored);
  int64_t heads = type.getDimSize(1), queries = type.getDimSize(2), keys = type.getDimSize(3);
  int64_t distances = queries + keys - 1;
  MLIRContext *ctx = lb.builder().getContext();
  Value buckets = bucketsOfDistances(lb, queries, keys, tensorOf(op.getTable()).getDimSize(0),
                                     op.getBidirectional(), op.getMaxDistance());
  Value table = op.getTable();
  // byDistance[h, d] = table[bucket(d), h]
  Value byDistance = lb.generic(
      buckets, mapOf(ctx, 2, {1}), lb.empty({heads, distances}, t), lb.identity(2), lb.parallel(2),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value bucket = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
        Value v = tensor::ExtractOp::create(b, l, table, ValueRange{bucket, indexOf(b, l, 0)});
        return castFloat(b, l, v, t);
      });
  Value offset = lb.index(queries - 1);
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
  Value buckets = bucketsOfDistances(lb, queries, keys, numBuckets, op.getBidirectional(),
                                     op.getMaxDistance());
  Value sums = lb.generic(
      {byDistance, buckets}, {mapOf(ctx, 3, {1, 2}), mapOf(ctx, 3, {2})},
      lb.filled({numBuckets, heads}, t, 0.0), mapOf(ctx, 3, {0, 1}),
      {IteratorType::parallel, IteratorType::parallel, IteratorType::reduction},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value u = arith::IndexCastOp::create(b, l, b.getI32Type(), indexOf(b, l, 0));
        Value mine = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], u);
        Value zeroF = arith::ConstantOp::create(b, l, b.getFloatAttr(t, 0.0));
        Value add = arith::SelectOp::create(b, l, mine, a[0], zeroF);
        return arith::AddFOp::create(b, l, a[2], add).getResult();
      });
  return SmallVector<Value>{lb.convertElements(sums, stored)};
}

} // namespace

void populateRelativePositionLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<RelativePositionBiasOp>(patterns, lowerBias);
  addLowering<RelativePositionBiasGradOp>(patterns, lowerBiasGrad);
}

} // namespace mt
