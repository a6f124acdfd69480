//===- LowerMmaAttentionGrad.cpp - dQ of fused attention on tensor cores ---===//
//
// The first backward kernel of mt.fused_attention_grad for the shapes the
// tensor cores take (docs/attention-gpu-design.md §4, K1): per warp task of
// 16 query rows, D = do . o for each row, then per key tile S = Q K^T again
// (P from the saved log-sum-exp), dP = dO V^T, dS = P (dP - D) scale with
// the dropout applied to dP as the row kernel applies it, and dQ += dS K,
// dS going from C fragments to A fragments as P does in the forward and K
// read from a transposed copy. The keys' side (dK, dV,
// LowerMmaAttentionKeys.cpp) reads D.
//
//===----------------------------------------------------------------------===//
#include "MmaAttentionTiles.h"

#include "Lowerings.h"

using namespace mlir;

namespace mt {

using Values = SmallVector<Value>;

FailureOr<std::pair<Value, Value>> lowerMmaQueryRowsGrad(FusedAttentionGradOp op,
                                                         const AttentionProblem &p,
                                                         LinalgBuilder &lb) {
  TaskShape shape = TaskShape::of(p);
  auto q = tensorOf(p.query);
  int64_t rows = p.batch * p.heads * p.queries;
  Value dOut = op.getGradOutput(), out = op.getOutput(), lse = op.getLse();
  Values inits{lb.empty(q.getShape(), q.getElementType()), lb.empty({rows}, p.compute)};
  Value keysT = transposedRows(lb, p.key);
  Values results = warpTasks(lb, p, shape, inits,
                             [&](const Fragments &f, const TaskRows &r, ValueRange outs) {
    const Scalar &s = f.s;
    const Index &x = f.x;
    Type f32 = s.b.getF32Type();
    auto outputAt = [&](Value row, Value col) { return p.outputAt(x, r.b, r.h, row, col); };
    // D = do . o for the lane's two rows: its fragment columns, then its quad.
    Value delta[2];
    Value deltas = outs[1];
    for (int k = 0; k < 2; ++k) {
      Value part = s.c(f32, 0.0);
      for (int64_t st = 0; st < shape.kSteps; ++st)
        for (int64_t column : {0, 1, 8, 9}) {
          Value col = x.add(x.mul(r.t, x.c(2)), x.c(16 * st + column));
          part = s.add(part, s.mul(s.at(dOut, outputAt(r.row[k], col)),
                                   s.at(out, outputAt(r.row[k], col))));
        }
      delta[k] = f.quad(part, gpu::AllReduceOperation::ADD);
      Value flat = x.add(x.mul(x.add(x.mul(r.b, x.c(p.heads)), r.h), x.c(p.queries)), r.row[k]);
      deltas = s.put(delta[k], deltas, {flat});
    }
    Values queryFragments = rowFragments(f, shape.kSteps, r.row, r.t, p.query,
                                         [&](Value row, Value col) {
                                           return Values{r.b, r.h, row, col};
                                         });
    Values gradFragments = rowFragments(f, shape.kSteps, r.row, r.t, dOut, outputAt);
    // In base-2 units, as the masked scores are.
    Value rowLse[2];
    for (int k = 0; k < 2; ++k)
      rowLse[k] = s.mul(s.cast(s.at(lse, {r.b, r.h, r.row[k]}), f32), s.c(f32, kLog2E));
    Values start(shape.nTiles, f.zeros());
    Values acc = loopTo(s, r.tiles(x, p, shape), start,
                        [&](Scalar t, Value tile, ValueRange carried) {
      Fragments ft{t, Index{t.b, t.l}, p.element};
      Index tx{t.b, t.l};
      Value j0 = tx.mul(tile, tx.c(shape.keyTile));
      auto keyedAt = [&](Value row, Value col) { return Values{r.b, r.kh, row, col}; };
      Values scores = tileProducts(ft, r.g, r.t, queryFragments, shape.keyNTiles(), j0, p.keys,
                                   p.key, keyedAt);
      SmallVector<Values> z = maskedScores(ft, p, shape, r, scores, j0);
      Values dpd = tileProducts(ft, r.g, r.t, gradFragments, shape.keyNTiles(), j0, p.keys,
                                p.value, keyedAt);
      SmallVector<Values> ds;
      for (auto [n, tileZ] : llvm::enumerate(z)) {
        Values row;
        for (int64_t e = 0; e < 4; ++e) {
          Value zv = tileZ[e];
          Value prob = t.select(t.eq(zv, t.c(f32, negInf())), t.c(f32, 0.0),
                                ft.exp2(t.sub(zv, rowLse[e >> 1])));
          Value j = tx.min(r.keyOf(tx, shape, j0, n, e), tx.c(p.keys - 1));
          Value dp = p.dropped(t, ft.at(dpd[n], e), r.b, r.h, r.row[e >> 1], j);
          row.push_back(t.mul(t.mul(prob, t.sub(dp, delta[e >> 1])), t.c(f32, p.scale)));
        }
        ds.push_back(row);
      }
      Values next(carried.begin(), carried.end());
      addTransposedProducts(ft, r.g, r.t, ds, j0, p.keys, keysT, keyedAt, next);
      return next;
    });
    Value dq = outs[0];
    for (int64_t c = 0; c < shape.nTiles; ++c)
      for (int64_t e = 0; e < 4; ++e) {
        Value col = x.add(x.mul(r.t, x.c(2)), x.c(8 * c + (e & 1)));
        dq = s.put(f.at(acc[c], e), dq, {r.b, r.h, r.row[e >> 1], col});
      }
    return Values{dq, deltas};
  });
  return std::make_pair(results[0], results[1]);
}

} // namespace mt
