//===- LowerAttentionOps.cpp - heads, scores, context, positions -----------===//
#include "Lowerings.h"

#include <cmath>

using namespace mlir;

namespace mt {
namespace {

AffineMap mapOf(MLIRContext *ctx, unsigned numDims, ArrayRef<AffineExpr> exprs) {
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// [B, S, nh, hd] <-> [B, nh, S, hd] is the same permutation both ways.
Value swapDims12(LinalgBuilder &lb, Value x) {
  auto type = tensorOf(x);
  SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(2), type.getDimSize(1),
                             type.getDimSize(3)};
  Value init = lb.empty(shape, type.getElementType());
  return linalg::TransposeOp::create(lb.builder(), lb.location(), x, init,
                                     ArrayRef<int64_t>{0, 2, 1, 3})
      .getResult()[0];
}

Lowered lowerSplitHeads(SplitHeadsOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  Value grouped = lb.reshape(
      op.getInput(), {out.getDimSize(0), out.getDimSize(2), out.getDimSize(1), out.getDimSize(3)});
  return SmallVector<Value>{swapDims12(lb, grouped)};
}

Lowered lowerMergeHeads(MergeHeadsOp op, LinalgBuilder &lb) {
  return SmallVector<Value>{
      lb.reshape(swapDims12(lb, op.getInput()), tensorOf(op.getResult()).getShape())};
}

/// scores[b,h,i,j] = sum_d q[b,h,i,d] k[b,h/g,j,d], and
/// context[b,h,i,d] = sum_j p[b,h,i,j] v[b,h/g,j,d].
Lowered lowerGroupedContraction(Value lhs, Value rhs, RankedTensorType out, bool scores,
                                LinalgBuilder &lb) {
  MLIRContext *ctx = lb.builder().getContext();
  int64_t group = tensorOf(lhs).getDimSize(1) / tensorOf(rhs).getDimSize(1);
  AffineExpr b = getAffineDimExpr(0, ctx), h = getAffineDimExpr(1, ctx),
             i = getAffineDimExpr(2, ctx), o = getAffineDimExpr(3, ctx),
             r = getAffineDimExpr(4, ctx);
  AffineExpr kh = h.floorDiv(group);
  // scores: o = j, r = d; context: o = d, r = j.
  AffineMap lhsMap = mapOf(ctx, 5, {b, h, i, r});
  AffineMap rhsMap = scores ? mapOf(ctx, 5, {b, kh, o, r}) : mapOf(ctx, 5, {b, kh, r, o});
  return SmallVector<Value>{lb.contract(lhs, lhsMap, rhs, rhsMap, out.getShape(),
                                        mapOf(ctx, 5, {b, h, i, o}),
                                        {false, false, false, false, true})};
}

Lowered lowerRotary(RotaryOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  int64_t headDim = type.getDimSize(3);
  int64_t rotary = op.getRotaryDimAttr() ? op.getRotaryDimAttr().getInt() : headDim;
  double base = op.getBase().convertToDouble();
  int64_t offset = op.getPositionOffsetAttr().getInt();
  double sign = op.getInverse() ? -1.0 : 1.0;
  Value input = op.getInput();
  Type t = computeType(type.getElementType());
  // A KV cache's run-time position adds to the static offset: one for the
  // batch, or one per row (a ragged batch).
  bool perRow = op.getPosition() && tensorOf(op.getPosition()).getRank() == 1;
  Value runTime = op.getPosition() && !perRow
                      ? clampedIndexOf(lb.builder(), lb.location(), op.getPosition(), 0, 1ll << 40)
                      : Value();
  Value rows = perRow ? op.getPosition() : Value();
  Value result = lb.map(input, input, [&](OpBuilder &b, Location l, ValueRange a) {
    auto cf = [&](double v) { return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v)); };
    auto ci = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
    Value bIdx = linalg::IndexOp::create(b, l, 0), h = linalg::IndexOp::create(b, l, 1);
    Value s = linalg::IndexOp::create(b, l, 2), d = linalg::IndexOp::create(b, l, 3);
    // Pair p = d / 2; angle = (s + offset) * base^(-2p / rotary).
    Value pair = arith::DivUIOp::create(b, l, d, ci(2));
    Value pairF =
        arith::UIToFPOp::create(b, l, t, arith::IndexCastOp::create(b, l, b.getI64Type(), pair));
    Value position = arith::AddIOp::create(b, l, s, ci(offset));
    if (runTime)
      position = arith::AddIOp::create(b, l, position, runTime);
    Value position64 = arith::IndexCastOp::create(b, l, b.getI64Type(), position);
    if (rows) // a left-padding token's position is negative: 0
      position64 = arith::MaxSIOp::create(
          b, l,
          arith::AddIOp::create(b, l, position64,
                                tensor::ExtractOp::create(b, l, rows, ValueRange{bIdx})),
          arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)));
    Value posF = arith::UIToFPOp::create(b, l, t, position64);
    Value exponent = arith::MulFOp::create(b, l, pairF, cf(-2.0 * std::log(base) / rotary));
    Value angle = arith::MulFOp::create(b, l, posF, math::ExpOp::create(b, l, exponent));
    Value cos = math::CosOp::create(b, l, angle);
    Value sin = arith::MulFOp::create(b, l, math::SinOp::create(b, l, angle), cf(sign));
    // partner = d ^ 1; even d: x cos - x' sin; odd d: x cos + x' sin.
    Value partnerIdx = arith::XOrIOp::create(b, l, d, ci(1));
    Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, d, ci(rotary));
    Value safePartner = arith::SelectOp::create(b, l, inRange, partnerIdx, d);
    Value partner = castFloat(
        b, l, tensor::ExtractOp::create(b, l, input, ValueRange{bIdx, h, s, safePartner}), t);
    Value odd = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne,
                                      arith::AndIOp::create(b, l, d, ci(1)), ci(0));
    Value signedSin = arith::SelectOp::create(b, l, odd, sin, arith::NegFOp::create(b, l, sin));
    Value rotated = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, a[0], cos),
                                          arith::MulFOp::create(b, l, partner, signedSin));
    return arith::SelectOp::create(b, l, inRange, rotated, a[0]).getResult();
  });
  return SmallVector<Value>{result};
}

/// ALiBi slopes of Press et al., [heads] in `t`, of global heads
/// first + h: for `closest` the largest power of two <= num_heads, head g
/// has 2^(-8 (g + 1) / closest), and heads beyond it the odd powers of
/// 2^(-4 / closest). Computed as exp2 of an exact exponent, so a
/// tensor-parallel rank's heads get the slopes one rank gives them; times
/// `scale` (mt.alibi's slope_scale), a constant.
Value alibiSlopes(LinalgBuilder &lb, int64_t heads, int64_t numHeads, double scale, Value first,
                  Type t) {
  int64_t closest = 1;
  while (closest * 2 <= numHeads)
    closest *= 2;
  return lb.generic(
      ValueRange{}, {}, lb.empty({heads}, t), lb.identity(1), lb.parallel(1),
      [&](OpBuilder &b, Location l, ValueRange) {
        auto constant = [&](double v) {
          return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
        };
        Value g = arith::AddIOp::create(b, l, linalg::IndexOp::create(b, l, 0), first);
        Value gi = arith::IndexCastOp::create(b, l, b.getI64Type(), g);
        Value gf = arith::SIToFPOp::create(b, l, t, gi);
        Value base = constant(static_cast<double>(closest));
        Value inside = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, gf, base);
        Value one = constant(1.0);
        Value power = arith::MulFOp::create(b, l, arith::AddFOp::create(b, l, gf, one),
                                            constant(-8.0 / static_cast<double>(closest)));
        Value odd = arith::AddFOp::create(
            b, l, arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, gf, base), constant(2.0)),
            one);
        Value extra =
            arith::MulFOp::create(b, l, odd, constant(-4.0 / static_cast<double>(closest)));
        Value exponent = arith::SelectOp::create(b, l, inside, power, extra);
        Value slope = math::Exp2Op::create(b, l, exponent);
        return scale == 1.0 ? slope : arith::MulFOp::create(b, l, slope, constant(scale));
      });
}

Lowered lowerAlibi(AlibiOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  Type t = type.getElementType();
  int64_t sq = type.getDimSize(2), sk = type.getDimSize(3), heads = type.getDimSize(1);
  // A tensor-parallel rank holds heads [shard * heads, (shard + 1) * heads).
  Value first = lb.index(0);
  if (op.getShard()) {
    OpBuilder &b = lb.builder();
    Value shard = scalarOf(b, lb.location(), op.getShard());
    first = arith::MulIOp::create(
        b, lb.location(), arith::IndexCastOp::create(b, lb.location(), b.getIndexType(), shard),
        lb.index(heads));
  }
  Value slopeTensor = alibiSlopes(lb, heads, op.getNumHeadsAttr().getInt(),
                                  op.getSlopeScale().convertToDouble(), first, computeType(t));
  MLIRContext *ctx = lb.builder().getContext();
  // Query i stands sk - sq keys in, or at a KV cache's run-time position.
  Value runTime =
      op.getPosition()
          ? arith::IndexCastOp::create(
                lb.builder(), lb.location(), lb.builder().getI64Type(),
                clampedIndexOf(lb.builder(), lb.location(), op.getPosition(), 0, 1ll << 40))
                .getResult()
          : Value();
  Value result = lb.generic(
      {op.getInput(), slopeTensor}, {lb.identity(4), mapOf(ctx, 4, {getAffineDimExpr(1, ctx)})},
      lb.empty(type.getShape(), t), lb.identity(4), lb.parallel(4),
      [&](OpBuilder &b, Location l, ValueRange a) {
        // distance = i + offset - j
        Value i = lb.loopIndexI64(b, l, 2), j = lb.loopIndexI64(b, l, 3);
        Value offset =
            runTime ? runTime
                    : arith::ConstantOp::create(b, l, b.getI64IntegerAttr(sk - sq)).getResult();
        Value dist = arith::SubIOp::create(b, l, arith::AddIOp::create(b, l, i, offset), j);
        Value distF = arith::SIToFPOp::create(b, l, computeType(t), dist);
        return arith::SubFOp::create(b, l, a[0], arith::MulFOp::create(b, l, a[1], distF))
            .getResult();
      });
  return SmallVector<Value>{result};
}

/// The update written over positions [position, position + n) of the
/// cache, in the cache's buffer: element by element at computed indices (a
/// view at an offset known only at run time would not lower into a GPU
/// kernel), one independent row per (batch, head, position).
Lowered lowerCacheInsert(CacheInsertOp op, LinalgBuilder &lb) {
  auto cache = tensorOf(op.getCache()), update = tensorOf(op.getUpdate());
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  int64_t heads = update.getDimSize(1), n = update.getDimSize(2), d = update.getDimSize(3);
  Value start = clampedIndexOf(b, loc, op.getPosition(), 0, cache.getDimSize(2) - n);
  Value updateValue = op.getUpdate();
  int64_t rows = update.getDimSize(0) * heads * n;
  return forEachRow(
      b, loc, rows, ValueRange{op.getCache()},
      [&](OpBuilder &rb, Location rl, Value r, ValueRange carried) {
        auto constant = [&](int64_t v) {
          return arith::ConstantIndexOp::create(rb, rl, v).getResult();
        };
        Value i = arith::RemUIOp::create(rb, rl, r, constant(n));
        Value bh = arith::DivUIOp::create(rb, rl, r, constant(n));
        Value h = arith::RemUIOp::create(rb, rl, bh, constant(heads));
        Value batch = arith::DivUIOp::create(rb, rl, bh, constant(heads));
        Value slot = arith::AddIOp::create(rb, rl, start, i);
        return forRange(
            rb, rl, d, carried, [&](OpBuilder &cb, Location cl, Value c, ValueRange acc) {
              Value v = tensor::ExtractOp::create(cb, cl, updateValue, ValueRange{batch, h, i, c});
              return SmallVector<Value>{
                  tensor::InsertOp::create(cb, cl, v, acc[0], ValueRange{batch, h, slot, c})};
            });
      });
}

} // namespace

void populateAttentionLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<CacheInsertOp>(patterns, lowerCacheInsert);
  addLowering<SplitHeadsOp>(patterns, lowerSplitHeads);
  addLowering<MergeHeadsOp>(patterns, lowerMergeHeads);
  addLowering<AttentionScoresOp>(patterns, [](AttentionScoresOp s, LinalgBuilder &lb) {
    return lowerGroupedContraction(s.getQuery(), s.getKey(), tensorOf(s.getResult()), true, lb);
  });
  addLowering<AttentionContextOp>(patterns, [](AttentionContextOp c, LinalgBuilder &lb) {
    return lowerGroupedContraction(c.getProbs(), c.getValue(), tensorOf(c.getResult()), false, lb);
  });
  addLowering<RotaryOp>(patterns, lowerRotary);
  addLowering<AlibiOp>(patterns, lowerAlibi);
}

} // namespace mt
