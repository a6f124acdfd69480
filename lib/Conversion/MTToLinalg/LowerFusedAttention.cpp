//===- LowerFusedAttention.cpp - FlashAttention as row kernels ------------===//
//
// mt.fused_attention: one loop over query rows. Each row walks the keys it
// sees in tiles: the tile's scores (a dot over head_dim each) go to a
// scratch row, the running maximum grows, the output accumulator is rescaled
// by exp(old max - new max) and takes the tile's probabilities (dropped as
// mt.dropout drops them) times the values. Only the output and the row's
// log-sum-exp are written; the scratch is [tile, rows] and [head_dim, rows]
// (the row index fastest, so a GPU's threads, one per row, read and write
// neighbouring addresses).
//
// mt.fused_attention_grad: two row kernels, so no two rows write one
// element (no atomics, the same result on every target). K1 walks query
// rows: D = do . o, then per key ds = p * (dp - D) * scale with p recomputed
// from the log-sum-exp, dq += ds k. K2 walks key rows: per query of the key
// head's group, in a fixed order, dv += p_dropped do and dk += ds q.
//
//===----------------------------------------------------------------------===//
#include "FusedAttentionKernel.h"
#include "Lowerings.h"

#include "mt/Transforms/MmaAttention.h"

using namespace mlir;

namespace mt {
namespace {

using Values = SmallVector<Value>;

/// `tensor[c, r] = 0` for c < count: a row's accumulator, cleared.
Value clearColumn(Scalar s, int64_t count, Value tensor, Value r, Type t) {
  return loop(s, count, tensor, [&](Scalar q, Value c, ValueRange a) {
    return Values{q.put(q.c(t, 0.0), a[0], {c, r})};
  })[0];
}

Lowered lowerFusedAttention(FusedAttentionOp op, LinalgBuilder &lb, bool tiled, bool mma) {
  FailureOr<AttentionProblem> problem = AttentionProblem::of(op, op.getOutput(), lb);
  if (failed(problem))
    return failure();
  const AttentionProblem &p = *problem;
  if (tiled && hasTiledAttention(p.element))
    return lowerTiledAttention(op, p, lb);
  if (mma && mmaAttentionShape(tensorOf(op.getQuery()), tensorOf(op.getKey())))
    return lowerMmaAttention(op, p, lb);
  int64_t rows = p.batch * p.heads * p.queries, bc = p.tile, d = p.headDim;
  Type ct = p.compute;
  double ninf = negInf();
  auto out = tensorOf(op.getOutput()), lse = tensorOf(op.getLse());
  Values inits{lb.empty(out.getShape(), out.getElementType()),
               lb.empty(lse.getShape(), lse.getElementType()), lb.empty({bc, rows}, ct),
               lb.empty({d, rows}, ct)};
  Values results = overRows(
      lb, rows, inits,
      [&](Scalar s, Value r, ValueRange outs) {
        Index x{s.b, s.l};
        Value b = x.div(r, p.heads * p.queries), h = x.rem(x.div(r, p.queries), p.heads);
        Value i = x.rem(r, p.queries), kh = x.div(h, p.group);
        Value limit = p.keyLimit(x, i);
        Value acc = clearColumn(s, d, outs[3], r, ct);
        // Carried over the key tiles: scratch, accumulator, max, sum.
        Values walk = loopTo(
            s, x.ceilDiv(limit, bc), {outs[2], acc, s.c(ct, ninf), s.c(ct, 0.0)},
            [&](Scalar t, Value tile, ValueRange st) {
              Index tx{t.b, t.l};
              Value j0 = tx.mul(tile, tx.c(bc));
              auto keyAt = [&](Index qx, Value jj) {
                Value j = qx.add(j0, jj);
                return std::make_pair(j, qx.min(j, qx.c(p.keys - 1)));
              };
              Values scored =
                  loop(t, bc, {st[0], t.c(ct, ninf)}, [&](Scalar q, Value jj, ValueRange a) {
                    auto [j, jc] = keyAt(Index{q.b, q.l}, jj);
                    Value seen = Index{q.b, q.l}.lt(j, limit);
                    if (p.keyMask)
                      seen = arith::AndIOp::create(q.b, q.l, seen, q.at(p.keyMask, {b, jc}));
                    Value z = q.select(seen, p.score(q, b, h, kh, i, jc), q.c(ct, ninf));
                    return Values{q.put(z, a[0], {jj, r}), q.max(a[1], z)};
                  });
              Value m = st[2], mNew = t.max(m, scored[1]);
              Value alpha = t.select(t.eq(m, t.c(ct, ninf)), t.c(ct, 0.0), t.exp(t.sub(m, mNew)));
              Values probs =
                  loop(t, bc, {scored[0], t.c(ct, 0.0)}, [&](Scalar q, Value jj, ValueRange a) {
                    Value z = q.at(a[0], {jj, r});
                    Value e = q.select(q.eq(z, q.c(ct, ninf)), q.c(ct, 0.0), q.exp(q.sub(z, mNew)));
                    Value kept = p.dropped(q, e, b, h, i, keyAt(Index{q.b, q.l}, jj).second);
                    return Values{q.put(kept, a[0], {jj, r}), q.add(a[1], e)};
                  });
              Value accNew = loop(t, d, st[1], [&](Scalar q, Value c, ValueRange a) {
                Value sum = loop(q, bc, q.c(ct, 0.0), [&](Scalar u, Value jj, ValueRange part) {
                  Value jc = keyAt(Index{u.b, u.l}, jj).second;
                  return Values{u.add(
                      part[0], u.mul(u.at(probs[0], {jj, r}), u.at(p.value, {b, kh, jc, c})))};
                })[0];
                return Values{q.put(q.add(q.mul(q.at(a[0], {c, r}), alpha), sum), a[0], {c, r})};
              })[0];
              return Values{probs[0], accNew, mNew, t.add(t.mul(st[3], alpha), probs[1])};
            });
        Value sum = walk[3], none = s.eq(sum, s.c(ct, 0.0));
        Value o = loop(s, d, outs[0], [&](Scalar q, Value c, ValueRange a) {
          Value v = q.select(none, q.c(ct, 0.0), q.div(q.at(walk[1], {c, r}), sum));
          return Values{q.put(v, a[0], p.outputAt(Index{q.b, q.l}, b, h, i, c))};
        })[0];
        Value logSum = s.add(walk[2], math::LogOp::create(s.b, s.l, sum));
        Value l = s.put(s.select(none, s.c(ct, ninf), logSum), outs[1], {b, h, i});
        return Values{o, l, walk[0], walk[1]};
      },
      /*independent=*/true);
  return Values{results[0], results[1]};
}

/// K1: dq and D = do . o per query row (K2 reads D).
std::pair<Value, Value> queryRowsGrad(FusedAttentionGradOp op, const AttentionProblem &p,
                                      LinalgBuilder &lb) {
  int64_t rows = p.batch * p.heads * p.queries, bc = p.tile, d = p.headDim;
  Type ct = p.compute;
  auto q = tensorOf(p.query);
  Value dOut = op.getGradOutput(), out = op.getOutput(), lse = op.getLse();
  Values inits{lb.empty(q.getShape(), q.getElementType()), lb.empty({rows}, ct),
               lb.empty({bc, rows}, ct), lb.empty({d, rows}, ct)};
  Values results = overRows(
      lb, rows, inits,
      [&](Scalar s, Value r, ValueRange outs) {
        Index x{s.b, s.l};
        Value b = x.div(r, p.heads * p.queries), h = x.rem(x.div(r, p.queries), p.heads);
        Value i = x.rem(r, p.queries), kh = x.div(h, p.group);
        Value limit = p.keyLimit(x, i);
        Value delta = p.dot(
            s,
            [&](Scalar u, Value c) { return u.at(dOut, p.outputAt(Index{u.b, u.l}, b, h, i, c)); },
            [&](Scalar u, Value c) { return u.at(out, p.outputAt(Index{u.b, u.l}, b, h, i, c)); });
        Value deltas = s.put(delta, outs[1], {r});
        Value rowLse = s.cast(s.at(lse, {b, h, i}), ct);
        Value acc = clearColumn(s, d, outs[3], r, ct);
        Values walk = loopTo(
            s, x.ceilDiv(limit, bc), {outs[2], acc}, [&](Scalar t, Value tile, ValueRange st) {
              Index tx{t.b, t.l};
              Value j0 = tx.mul(tile, tx.c(bc));
              auto clamped = [&](Index qx, Value jj) {
                return qx.min(qx.add(j0, jj), qx.c(p.keys - 1));
              };
              Value ds = loop(t, bc, st[0], [&](Scalar u, Value jj, ValueRange a) {
                Index ux{u.b, u.l};
                Value jc = clamped(ux, jj);
                Value seen = ux.lt(ux.add(j0, jj), limit);
                if (p.keyMask)
                  seen = arith::AndIOp::create(u.b, u.l, seen, u.at(p.keyMask, {b, jc}));
                Value prob =
                    u.select(seen, u.exp(u.sub(p.score(u, b, h, kh, i, jc), rowLse)), u.c(ct, 0.0));
                Value dp = p.dot(
                    u,
                    [&](Scalar w, Value c) {
                      return w.at(dOut, p.outputAt(Index{w.b, w.l}, b, h, i, c));
                    },
                    [&](Scalar w, Value c) { return w.at(p.value, {b, kh, jc, c}); });
                dp = p.dropped(u, dp, b, h, i, jc);
                Value g = u.mul(u.mul(prob, u.sub(dp, delta)), u.c(ct, p.scale));
                return Values{u.put(g, a[0], {jj, r})};
              })[0];
              Value accNew = loop(t, d, st[1], [&](Scalar u, Value c, ValueRange a) {
                Value sum = loop(u, bc, u.c(ct, 0.0), [&](Scalar w, Value jj, ValueRange part) {
                  Value jc = clamped(Index{w.b, w.l}, jj);
                  return Values{
                      w.add(part[0], w.mul(w.at(ds, {jj, r}), w.at(p.key, {b, kh, jc, c})))};
                })[0];
                return Values{u.put(u.add(u.at(a[0], {c, r}), sum), a[0], {c, r})};
              })[0];
              return Values{ds, accNew};
            });
        Value dq = loop(s, d, outs[0], [&](Scalar u, Value c, ValueRange a) {
          return Values{u.put(u.at(walk[1], {c, r}), a[0], {b, h, i, c})};
        })[0];
        return Values{dq, deltas, walk[0], walk[1]};
      },
      /*independent=*/true);
  return {results[0], results[1]};
}

/// K2: dk and dv per key row, over the key head's query group in order.
std::pair<Value, Value> keyRowsGrad(FusedAttentionGradOp op, const AttentionProblem &p,
                                    Value deltas, LinalgBuilder &lb) {
  int64_t rows = p.batch * p.kvHeads * p.keys, bq = std::min(p.tile, p.queries), d = p.headDim;
  Type ct = p.compute;
  auto k = tensorOf(p.key);
  Value dOut = op.getGradOutput(), lse = op.getLse();
  Values inits{lb.empty(k.getShape(), k.getElementType()),
               lb.empty(k.getShape(), k.getElementType()),
               lb.empty({bq, rows}, ct),
               lb.empty({bq, rows}, ct),
               lb.empty({d, rows}, ct),
               lb.empty({d, rows}, ct)};
  Values results = overRows(
      lb, rows, inits,
      [&](Scalar s, Value r, ValueRange outs) {
        Index x{s.b, s.l};
        Value b = x.div(r, p.kvHeads * p.keys), kh = x.rem(x.div(r, p.keys), p.kvHeads);
        Value j = x.rem(r, p.keys);
        Value start = p.queryStart(x, j);
        Value tiles = x.ceilDiv(x.sub(x.c(p.queries), start), bq);
        Value kept = p.keyMask ? s.at(p.keyMask, {b, j}) : Value();
        Values accs{clearColumn(s, d, outs[4], r, ct), clearColumn(s, d, outs[5], r, ct)};
        Values group = loop(
            s, p.group, {outs[2], outs[3], accs[0], accs[1]},
            [&](Scalar g, Value hh, ValueRange gs) {
              Index gx{g.b, g.l};
              Value h = gx.add(gx.mul(kh, gx.c(p.group)), hh);
              return loopTo(g, tiles, gs, [&](Scalar t, Value tile, ValueRange st) {
                Index tx{t.b, t.l};
                Value i0 = tx.add(start, tx.mul(tile, tx.c(bq)));
                auto clamped = [&](Index qx, Value ii) {
                  return qx.min(qx.add(i0, ii), qx.c(p.queries - 1));
                };
                Values scratch = loop(t, bq, {st[0], st[1]}, [&](Scalar u, Value ii, ValueRange a) {
                  Index ux{u.b, u.l};
                  Value ic = clamped(ux, ii);
                  Value seen = ux.lt(ux.add(i0, ii), ux.c(p.queries));
                  if (kept)
                    seen = arith::AndIOp::create(u.b, u.l, seen, kept);
                  Value rowLse = u.cast(u.at(lse, {b, h, ic}), ct);
                  Value prob = u.select(seen, u.exp(u.sub(p.score(u, b, h, kh, ic, j), rowLse)),
                                        u.c(ct, 0.0));
                  Value dp = p.dot(
                      u,
                      [&](Scalar w, Value c) {
                        return w.at(dOut, p.outputAt(Index{w.b, w.l}, b, h, ic, c));
                      },
                      [&](Scalar w, Value c) { return w.at(p.value, {b, kh, j, c}); });
                  dp = p.dropped(u, dp, b, h, ic, j);
                  Value row =
                      ux.add(ux.mul(ux.add(ux.mul(b, ux.c(p.heads)), h), ux.c(p.queries)), ic);
                  Value delta = u.at(deltas, {row});
                  Value ds = u.mul(u.mul(prob, u.sub(dp, delta)), u.c(ct, p.scale));
                  Value pd = p.dropped(u, prob, b, h, ic, j);
                  return Values{u.put(pd, a[0], {ii, r}), u.put(ds, a[1], {ii, r})};
                });
                Values sums = loop(t, d, {st[2], st[3]}, [&](Scalar u, Value c, ValueRange a) {
                  Values part = loop(
                      u, bq, {u.c(ct, 0.0), u.c(ct, 0.0)}, [&](Scalar w, Value ii, ValueRange acc) {
                        Value ic = clamped(Index{w.b, w.l}, ii);
                        Value dv = w.mul(w.at(scratch[0], {ii, r}),
                                         w.at(dOut, p.outputAt(Index{w.b, w.l}, b, h, ic, c)));
                        Value dk = w.mul(w.at(scratch[1], {ii, r}), w.at(p.query, {b, h, ic, c}));
                        return Values{w.add(acc[0], dk), w.add(acc[1], dv)};
                      });
                  return Values{u.put(u.add(u.at(a[0], {c, r}), part[0]), a[0], {c, r}),
                                u.put(u.add(u.at(a[1], {c, r}), part[1]), a[1], {c, r})};
                });
                return Values{scratch[0], scratch[1], sums[0], sums[1]};
              });
            });
        Values grads = loop(s, d, {outs[0], outs[1]}, [&](Scalar u, Value c, ValueRange a) {
          return Values{u.put(u.at(group[2], {c, r}), a[0], {b, kh, j, c}),
                        u.put(u.at(group[3], {c, r}), a[1], {b, kh, j, c})};
        });
        return Values{grads[0], grads[1], group[0], group[1], group[2], group[3]};
      },
      /*independent=*/true);
  return {results[0], results[1]};
}

Lowered lowerFusedAttentionGrad(FusedAttentionGradOp op, LinalgBuilder &lb, bool tiled, bool mma) {
  FailureOr<AttentionProblem> problem = AttentionProblem::of(op, op.getOutput(), lb);
  if (failed(problem))
    return failure();
  if (tiled && hasTiledAttention(problem->element))
    return lowerTiledAttentionGrad(op, *problem, lb);
  if (mma && mmaAttentionShape(tensorOf(op.getQuery()), tensorOf(op.getKey()))) {
    FailureOr<std::pair<Value, Value>> queries = lowerMmaQueryRowsGrad(op, *problem, lb);
    if (failed(queries))
      return failure();
    FailureOr<std::pair<Value, Value>> keys =
        lowerMmaKeyRowsGrad(op, *problem, queries->second, lb);
    if (failed(keys))
      return failure();
    return Values{queries->first, keys->first, keys->second};
  }
  auto [dq, deltas] = queryRowsGrad(op, *problem, lb);
  auto [dk, dv] = keyRowsGrad(op, *problem, deltas, lb);
  return Values{dq, dk, dv};
}

} // namespace

void populateFusedAttentionLoweringPatterns(RewritePatternSet &patterns, bool tiled, bool mma) {
  addLowering<FusedAttentionOp>(patterns, [tiled, mma](FusedAttentionOp op, LinalgBuilder &lb) {
    return lowerFusedAttention(op, lb, tiled, mma);
  });
  addLowering<FusedAttentionGradOp>(patterns,
                                    [tiled, mma](FusedAttentionGradOp op, LinalgBuilder &lb) {
                                      return lowerFusedAttentionGrad(op, lb, tiled, mma);
                                    });
}

} // namespace mt
