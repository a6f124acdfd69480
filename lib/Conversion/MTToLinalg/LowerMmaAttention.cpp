//===- LowerMmaAttention.cpp - fused attention's forward on tensor cores ---===//
//
// mt.fused_attention for GPU plans whose shapes qualify (mmaAttentionShape):
// a loop of warp tasks written for one lane of one warp
// (docs/attention-gpu-design.md §2-3; the pieces in MmaAttentionTiles.h).
// Per tile of keys, S = Q K^T is a row of mt.warp_mma, the online softmax
// runs in registers with each row's maximum and sum combined over the
// lane's quad, and O += P V takes the probabilities straight from S's
// accumulator fragments, V read from a transposed copy made before the
// tasks (groups of neighbouring keys; MmaAttentionTiles.h). The masks, the dropout and the guards are the row
// kernel's, element for element; the grouping of the sums differs, and P
// is rounded to the element type before P V (as FlashAttention does).
// mt-map-to-gpu runs each task on a warp (mapWarpTasks).
//
//===----------------------------------------------------------------------===//
#include "MmaAttentionTiles.h"

#include "Lowerings.h"

using namespace mlir;

namespace mt {
namespace {

using Values = SmallVector<Value>;

/// What a lane carries from one key tile to the next: the O accumulator
/// (D / 8 fragments) and each of its two rows' running maximum and sum.
struct Running {
  Values acc;
  Value max[2], sum[2];

  Values flat() const {
    Values all(acc);
    all.append({max[0], max[1], sum[0], sum[1]});
    return all;
  }
  static Running of(ValueRange all, int64_t fragments) {
    Running r;
    r.acc.assign(all.begin(), all.begin() + fragments);
    for (int k = 0; k < 2; ++k) {
      r.max[k] = all[fragments + k];
      r.sum[k] = all[fragments + 2 + k];
    }
    return r;
  }
};

/// One key tile of the forward: scores, online softmax, O += P V.
Running keyTile(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                const TaskRows &r, ArrayRef<Value> queryFragments, Value valuesT, Value tile,
                const Running &in) {
  const Scalar &s = f.s;
  const Index &x = f.x;
  Type f32 = s.b.getF32Type();
  double ninf = negInf();
  Value j0 = x.mul(tile, x.c(shape.keyTile));
  auto keyedAt = [&](Value row, Value col) { return Values{r.b, r.kh, row, col}; };
  Values scores = tileProducts(f, r.g, r.t, queryFragments, shape.keyNTiles(), j0, p.keys, p.key,
                               keyedAt);
  SmallVector<Values> z = maskedScores(f, p, shape, r, scores, j0);
  // The rows' new maxima, over the lane's elements and then its quad.
  Running out;
  Value alpha[2];
  for (int k = 0; k < 2; ++k) {
    Value m = s.c(f32, ninf);
    for (const Values &tileZ : z)
      m = s.max(s.max(m, tileZ[2 * k]), tileZ[2 * k + 1]);
    out.max[k] = s.max(in.max[k], f.quad(m, gpu::AllReduceOperation::MAXIMUMF));
    Value none = s.eq(in.max[k], s.c(f32, ninf));
    alpha[k] = s.select(none, s.c(f32, 0.0), f.exp2(s.sub(in.max[k], out.max[k])));
  }
  // Probabilities (the sum takes them undropped, as the row kernel's does).
  SmallVector<Values> kept;
  Value partial[2] = {s.c(f32, 0.0), s.c(f32, 0.0)};
  for (auto [n, tileZ] : llvm::enumerate(z)) {
    Values row;
    for (int64_t e = 0; e < 4; ++e) {
      Value zv = tileZ[e];
      Value prob = s.select(s.eq(zv, s.c(f32, ninf)), s.c(f32, 0.0),
                            f.exp2(s.sub(zv, out.max[e >> 1])));
      partial[e >> 1] = s.add(partial[e >> 1], prob);
      Value j = x.min(r.keyOf(x, shape, j0, n, e), x.c(p.keys - 1));
      row.push_back(p.dropped(s, prob, r.b, r.h, r.row[e >> 1], j));
    }
    kept.push_back(row);
  }
  for (int k = 0; k < 2; ++k)
    out.sum[k] =
        s.add(s.mul(in.sum[k], alpha[k]), f.quad(partial[k], gpu::AllReduceOperation::ADD));
  // O = O alpha + P V.
  for (Value acc : in.acc) {
    Values scaled;
    for (int64_t e = 0; e < 4; ++e)
      scaled.push_back(s.mul(f.at(acc, e), alpha[e >> 1]));
    out.acc.push_back(f.vector(scaled, f32));
  }
  addTransposedProducts(f, r.g, r.t, kept, j0, p.keys, valuesT, keyedAt, out.acc);
  return out;
}

} // namespace

FailureOr<Values> lowerMmaAttention(FusedAttentionOp op, const AttentionProblem &p,
                                    LinalgBuilder &lb) {
  // Tiles of 32 keys: at head dim 64 on sm_90, 138 registers (3 blocks an
  // SM) against 64's 191, and 119 us a GPT-2 layer at micro-batch 4
  // against 137 (H100, 2026-11-28).
  TaskShape shape = TaskShape::of(p);
  shape.keyTile = std::min<int64_t>(shape.keyTile, 32);
  auto out = tensorOf(op.getOutput()), lse = tensorOf(op.getLse());
  Values inits{lb.empty(out.getShape(), out.getElementType()),
               lb.empty(lse.getShape(), lse.getElementType())};
  Value valuesT = transposedRows(lb, p.value);
  return warpTasks(lb, p, shape, inits,
                   [&](const Fragments &f, const TaskRows &r, ValueRange outs) -> Values {
    const Scalar &s = f.s;
    const Index &x = f.x;
    Type f32 = s.b.getF32Type();
    // Q's A fragments, loaded once.
    Values queryFragments = rowFragments(f, shape.kSteps, r.row, r.t, p.query,
                                         [&](Value row, Value col) {
                                           return Values{r.b, r.h, row, col};
                                         });
    Running start;
    start.acc.assign(shape.nTiles, f.zeros());
    for (int k = 0; k < 2; ++k) {
      start.max[k] = s.c(f32, negInf());
      start.sum[k] = s.c(f32, 0.0);
    }
    Values walk = loopTo(s, r.tiles(x, p, shape), start.flat(),
                         [&](Scalar t, Value tile, ValueRange carried) {
                           Fragments ft{t, Index{t.b, t.l}, p.element};
                           return keyTile(ft, p, shape, r, queryFragments, valuesT, tile,
                                          Running::of(carried, shape.nTiles))
                               .flat();
                         });
    Running end = Running::of(walk, shape.nTiles);
    Value o = outs[0], logSum = outs[1];
    for (int64_t c = 0; c < shape.nTiles; ++c)
      for (int64_t e = 0; e < 4; ++e) {
        Value sum = end.sum[e >> 1];
        Value v = s.select(s.eq(sum, s.c(f32, 0.0)), s.c(f32, 0.0),
                           s.div(f.at(end.acc[c], e), sum));
        Value col = x.add(x.mul(r.t, x.c(2)), x.c(8 * c + (e & 1)));
        o = s.put(v, o, p.outputAt(x, r.b, r.h, r.row[e >> 1], col));
      }
    // Every lane of a quad writes its rows' log-sum-exp: the same value.
    for (int k = 0; k < 2; ++k) {
      Value none = s.eq(end.sum[k], s.c(f32, 0.0));
      // The maxima are in base-2 units: lse = (max + log2(sum)) ln 2.
      Value v = s.mul(s.add(end.max[k], math::Log2Op::create(s.b, s.l, end.sum[k])),
                      s.c(f32, 1.0 / kLog2E));
      logSum = s.put(s.select(none, s.c(f32, negInf()), v), logSum, {r.b, r.h, r.row[k]});
    }
    return Values{o, logSum};
  });
}

} // namespace mt
