//===- LowerMmaAttentionKeys.cpp - dK and dV of fused attention on tensor cores ===//
//
// The second backward kernel of mt.fused_attention_grad for the shapes the
// tensor cores take (docs/attention-gpu-design.md §4, K2). A warp task is 16
// keys of one (batch, key head); the lane holds keys g and g + 8 as the rows
// of its fragments. For each query head of the key head's group in order,
// and each tile of queries that can see the task's keys: S^T = K Q^T and
// dPd^T = V dO^T, then P^T from the saved log-sum-exp, the dropout applied
// as the row kernel applies it, dS^T = P^T (dP^T - D) scale, and
// dV += Pd^T dO, dK += dS^T Q with P^T and dS^T going from C fragments to A
// fragments, Q and dO read from transposed copies. No two tasks write one
// element: no atomics.
//
//===----------------------------------------------------------------------===//
#include "MmaAttentionTiles.h"

#include "Lowerings.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Transforms/MmaAttention.h"

using namespace mlir;

namespace mt {
namespace {

using Values = SmallVector<Value>;

/// The task's keys and the lane's place among them.
struct KeyRows {
  Value b, kh, g, t, first;
  Value key[2]; ///< keys g and g + 8 of the task
};

/// dO as [B, Hq, D, Sq] (from [B, Sq, Hq * D] when merged): rows read
/// along the queries of dV += Pd^T dO.
Value transposedGrad(LinalgBuilder &outer, const AttentionProblem &p, Value dOut) {
  if (!p.merged)
    return transposedRows(outer, dOut);
  LinalgBuilder lb = transposing(outer);
  Value split = lb.reshape(dOut, {p.batch, p.queries, p.heads, p.headDim});
  MLIRContext *context = lb.builder().getContext();
  AffineExpr b, h, d, i;
  bindDims(context, b, h, d, i);
  auto read = AffineMap::get(4, 0, {b, i, h, d}, context);
  Value init = lb.empty({p.batch, p.heads, p.headDim, p.queries}, p.element);
  return lb.generic({split}, {read}, init, lb.identity(4),
                    SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                    [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

} // namespace

FailureOr<std::pair<Value, Value>> lowerMmaKeyRowsGrad(FusedAttentionGradOp op,
                                                       const AttentionProblem &p, Value deltas,
                                                       LinalgBuilder &lb) {
  // Query tiles of 16: K, V and both accumulators stay in registers (at
  // head dim 64 on sm_90, tiles of 64 or 32 spilled at 255 registers; 16
  // takes 180). Tuning (a cheaper dropout hash, shared memory) may allow more.
  TaskShape shape = TaskShape::of(p);
  shape.keyTile = std::min<int64_t>(shape.keyTile, 16);
  int64_t keyTasks = p.keys / kMmaRows, tasks = p.batch * p.kvHeads * keyTasks;
  int64_t queryTile = shape.keyTile, nd = shape.nTiles;
  auto k = tensorOf(p.key);
  Value dOut = op.getGradOutput(), lse = op.getLse();
  Value queriesT = transposedRows(lb, p.query), gradT = transposedGrad(lb, p, dOut);
  Values inits{lb.empty(k.getShape(), k.getElementType()),
               lb.empty(k.getShape(), k.getElementType())};
  Values results = forRange(
      lb.builder(), lb.location(), tasks, inits,
      [&](OpBuilder &b, Location l, Value task, ValueRange outs) -> Values {
        Fragments f{Scalar{b, l}, Index{b, l}, p.element};
        const Scalar &s = f.s;
        const Index &x = f.x;
        Type f32 = b.getF32Type();
        Value lane = LaneIdOp::create(b, l, b.getIndexType(), task);
        KeyRows r;
        r.g = x.div(lane, 4);
        r.t = x.rem(lane, 4);
        r.b = x.div(task, p.kvHeads * keyTasks);
        r.kh = x.rem(x.div(task, keyTasks), p.kvHeads);
        r.first = x.mul(x.rem(task, keyTasks), x.c(kMmaRows));
        r.key[0] = x.add(r.first, r.g);
        r.key[1] = x.add(r.key[0], x.c(8));
        auto keyedAt = [&](Value row, Value col) { return Values{r.b, r.kh, row, col}; };
        Values keyFragments = rowFragments(f, shape.kSteps, r.key, r.t, p.key, keyedAt);
        Values valueFragments = rowFragments(f, shape.kSteps, r.key, r.t, p.value, keyedAt);
        Value kept[2];
        for (int k = 0; k < 2; ++k)
          kept[k] = p.keyMask ? s.at(p.keyMask, {r.b, r.key[k]}) : Value();
        // Query tiles from the first that sees the task's first key (the
        // same for every lane).
        Value firstTile = x.div(p.queryStart(x, r.first), queryTile);
        Value tiles = x.sub(x.c((p.queries + queryTile - 1) / queryTile), firstTile);
        Values start(2 * nd, f.zeros());
        Values sums = loop(s, p.group, start, [&](Scalar g, Value hh, ValueRange accs) {
          Index gx{g.b, g.l};
          Value h = gx.add(gx.mul(r.kh, gx.c(p.group)), hh);
          return loopTo(g, tiles, accs, [&](Scalar t, Value tile, ValueRange carried) {
            Fragments ft{t, Index{t.b, t.l}, p.element};
            Index tx{t.b, t.l};
            Value i0 = tx.mul(tx.add(firstTile, tile), tx.c(queryTile));
            auto queryAt = [&](Value query, Value col) { return Values{r.b, h, query, col}; };
            auto gradAt = [&](Value query, Value col) {
              return p.outputAt(tx, r.b, h, query, col);
            };
            auto transposedAt = [&](Value col, Value query) {
              return Values{r.b, h, col, query};
            };
            int64_t nTiles = shape.keyNTiles();
            Values scores = tileProducts(ft, r.g, r.t, keyFragments, nTiles, i0, p.queries,
                                         p.query, queryAt);
            Values dpd = tileProducts(ft, r.g, r.t, valueFragments, nTiles, i0, p.queries, dOut,
                                      gradAt);
            SmallVector<Values> pd, ds;
            for (int64_t n = 0; n < shape.keyNTiles(); ++n) {
              Values pdRow, dsRow;
              for (int64_t e = 0; e < 4; ++e) {
                Value key = r.key[e >> 1];
                Value i = tileColumn(tx, i0, nTiles, n, r.t, tx.c(e & 1));
                Value ic = tx.min(i, tx.c(p.queries - 1));
                Value seen = tx.lt(i, tx.c(p.queries));
                if (p.causal)
                  seen = arith::AndIOp::create(t.b, t.l, seen, tx.lt(key, p.keyLimit(tx, i)));
                if (kept[e >> 1])
                  seen = arith::AndIOp::create(t.b, t.l, seen, kept[e >> 1]);
                // exp(score - lse) in base-2 units.
                Value rowLse = t.mul(t.cast(t.at(lse, {r.b, h, ic}), f32), t.c(f32, kLog2E));
                Value score = t.mul(ft.at(scores[n], e), t.c(f32, p.scale * kLog2E));
                Value prob = t.select(seen, ft.exp2(t.sub(score, rowLse)), t.c(f32, 0.0));
                Value dp = p.dropped(t, ft.at(dpd[n], e), r.b, h, ic, key);
                Value flat = tx.add(tx.mul(tx.add(tx.mul(r.b, tx.c(p.heads)), h),
                                           tx.c(p.queries)), ic);
                Value delta = t.at(deltas, {flat});
                dsRow.push_back(t.mul(t.mul(prob, t.sub(dp, delta)), t.c(f32, p.scale)));
                pdRow.push_back(p.dropped(t, prob, r.b, h, ic, key));
              }
              pd.push_back(pdRow);
              ds.push_back(dsRow);
            }
            Values dk(carried.begin(), carried.begin() + nd);
            Values dv(carried.begin() + nd, carried.end());
            addTransposedProducts(ft, r.g, r.t, ds, i0, p.queries, queriesT, transposedAt, dk);
            addTransposedProducts(ft, r.g, r.t, pd, i0, p.queries, gradT, transposedAt, dv);
            dk.append(dv);
            return dk;
          });
        });
        Value dk = outs[0], dv = outs[1];
        for (int64_t c = 0; c < nd; ++c)
          for (int64_t e = 0; e < 4; ++e) {
            Value col = x.add(x.mul(r.t, x.c(2)), x.c(8 * c + (e & 1)));
            Values at{r.b, r.kh, r.key[e >> 1], col};
            dk = s.put(f.at(sums[c], e), dk, at);
            dv = s.put(f.at(sums[nd + c], e), dv, at);
          }
        return Values{dk, dv};
      });
  results.front().getDefiningOp()->setAttr(kWarpTasksAttrName,
                                           lb.builder().getI64IntegerAttr(kMmaWarpsPerBlock));
  return std::make_pair(results[0], results[1]);
}

} // namespace mt
