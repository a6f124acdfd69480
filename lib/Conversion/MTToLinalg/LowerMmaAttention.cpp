//===- LowerMmaAttention.cpp - fused attention on tensor cores, per lane ---===//
//
// mt.fused_attention for GPU plans whose shapes qualify (mmaAttentionShape):
// a loop of warp tasks written for one lane of one warp
// (docs/attention-gpu-design.md §2-3). A task is 16 query rows of one
// (batch, head); the lane holds rows g and g + 8 of it (g = lane / 4) as
// m16n8k16 fragments. Per tile of keys, S = Q K^T is a row of mt.warp_mma,
// the online softmax runs in registers with the row's maximum and sum
// combined over the lane's quad (cluster-4 reductions), and O += P V takes
// the probabilities straight from S's accumulator fragments (the C layout of
// two n-tiles is the A layout of one k-step). The masks, the dropout and
// the guards are the row kernel's, element for element; only the grouping
// of the sums differs. mt-map-to-gpu runs each task on a warp
// (mapWarpTasks).
//
//===----------------------------------------------------------------------===//
#include "FusedAttentionKernel.h"
#include "Lowerings.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Transforms/MmaAttention.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mt {
namespace {

using Values = SmallVector<Value>;

/// Warps of a block: 4 consecutive tasks of one (batch, head) read the same
/// key and value tiles.
constexpr int64_t kWarpsPerBlock = 4;

/// One lane's arithmetic on fragments at one builder position.
struct Fragments {
  Scalar s;
  Index x;
  Type element; ///< bf16 or f16

  Value vector(ArrayRef<Value> elements, Type type) const {
    return vector::FromElementsOp::create(
        s.b, s.l, VectorType::get({static_cast<int64_t>(elements.size())}, type), elements);
  }
  Value at(Value v, int64_t i) const { return vector::ExtractOp::create(s.b, s.l, v, i); }
  Value zeros() const {
    Value zero = s.c(s.b.getF32Type(), 0.0);
    return vector({zero, zero, zero, zero}, s.b.getF32Type());
  }
  /// An element of a 16-bit tensor as it is (no widening).
  Value load(Value tensor, ValueRange indices) const {
    return tensor::ExtractOp::create(s.b, s.l, tensor, indices);
  }
  Value mma(Value a, Value b, Value c) const {
    return WarpMmaOp::create(s.b, s.l, c.getType(), a, b, c,
                             s.b.getDenseI64ArrayAttr({16, 8, 16}));
  }
  /// The quad's (4 lanes holding one row) maximum or sum of `v`.
  Value quad(Value v, gpu::AllReduceOperation kind) const {
    return gpu::SubgroupReduceOp::create(s.b, s.l, v, kind, /*uniform=*/true,
                                         /*cluster_size=*/4);
  }
};

/// The forward's sizes per warp task.
struct TaskShape {
  int64_t queryTiles; ///< 16-row tasks per (batch, head)
  int64_t keyTile;    ///< keys per iteration of the tile loop
  int64_t nTiles;     ///< 8-key (or 8-column) n-tiles of an MMA row
  int64_t kSteps;     ///< 16-column k-steps over the head dim
};

TaskShape taskShape(const AttentionProblem &p) {
  // Registers: S of a tile is keyTile / 2 f32 a lane beside the D / 2 of O.
  int64_t keyTile = p.headDim <= 64 ? 64 : 32;
  return {p.queries / kMmaRows, keyTile, p.headDim / 8, p.headDim / kMmaRows};
}

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

/// The task's rows and their place in the problem.
struct TaskRows {
  Value b, h, kh, g, t;
  Value row[2]; ///< query rows g and g + 8 of the task
};

/// One key tile of the forward: scores, online softmax, O += P V.
Running keyTile(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                const TaskRows &r, ArrayRef<Value> queryFragments, Value tile,
                const Running &in) {
  const Scalar &s = f.s;
  const Index &x = f.x;
  Type f32 = s.b.getF32Type();
  double ninf = negInf();
  Value j0 = x.mul(tile, x.c(shape.keyTile));
  auto clamp = [&](Value j) { return x.min(j, x.c(p.keys - 1)); };
  Value limit[2] = {p.keyLimit(x, r.row[0]), p.keyLimit(x, r.row[1])};
  // S = Q K^T, an n-tile of 8 keys at a time; masked to -inf.
  SmallVector<Values> z;
  for (int64_t n = 0; n < shape.keyTile / 8; ++n) {
    Value key = clamp(x.add(x.add(j0, x.c(8 * n)), r.g));
    Value scores = f.zeros();
    for (int64_t st = 0; st < shape.kSteps; ++st) {
      Values elements;
      for (int64_t i = 0; i < 4; ++i) {
        Value col = x.add(x.mul(r.t, x.c(2)), x.c(16 * st + (i & 1) + 8 * (i >> 1)));
        elements.push_back(f.load(p.key, {r.b, r.kh, key, col}));
      }
      scores = f.mma(queryFragments[st], f.vector(elements, f.element), scores);
    }
    Values masked;
    for (int64_t e = 0; e < 4; ++e) {
      Value j = x.add(x.add(j0, x.c(8 * n + (e & 1))), x.mul(r.t, x.c(2)));
      Value seen = x.lt(j, limit[e >> 1]);
      if (p.keyMask)
        seen = arith::AndIOp::create(s.b, s.l, seen, s.at(p.keyMask, {r.b, clamp(j)}));
      Value scaled = s.mul(f.at(scores, e), s.c(f32, p.scale));
      masked.push_back(s.select(seen, scaled, s.c(f32, ninf)));
    }
    z.push_back(masked);
  }
  // The rows' new maxima, over the lane's elements and then its quad.
  Running out;
  Value alpha[2];
  for (int k = 0; k < 2; ++k) {
    Value m = s.c(f32, ninf);
    for (const Values &tileZ : z)
      m = s.max(s.max(m, tileZ[2 * k]), tileZ[2 * k + 1]);
    out.max[k] = s.max(in.max[k], f.quad(m, gpu::AllReduceOperation::MAXIMUMF));
    Value none = s.eq(in.max[k], s.c(f32, ninf));
    alpha[k] = s.select(none, s.c(f32, 0.0), s.exp(s.sub(in.max[k], out.max[k])));
  }
  // Probabilities (the sum takes them undropped, as the row kernel's does).
  SmallVector<Values> kept;
  Value partial[2] = {s.c(f32, 0.0), s.c(f32, 0.0)};
  for (auto [n, tileZ] : llvm::enumerate(z)) {
    Values row;
    for (int64_t e = 0; e < 4; ++e) {
      Value zv = tileZ[e];
      Value prob = s.select(s.eq(zv, s.c(f32, ninf)), s.c(f32, 0.0),
                            s.exp(s.sub(zv, out.max[e >> 1])));
      partial[e >> 1] = s.add(partial[e >> 1], prob);
      Value j = x.add(x.add(j0, x.c(8 * n + (e & 1))), x.mul(r.t, x.c(2)));
      row.push_back(p.dropped(s, prob, r.b, r.h, r.row[e >> 1], clamp(j)));
    }
    kept.push_back(row);
  }
  for (int k = 0; k < 2; ++k)
    out.sum[k] = s.add(s.mul(in.sum[k], alpha[k]),
                       f.quad(partial[k], gpu::AllReduceOperation::ADD));
  // O = O alpha + P V: k-steps of 16 keys, n-tiles of 8 head columns.
  for (Value acc : in.acc) {
    Values scaled;
    for (int64_t e = 0; e < 4; ++e)
      scaled.push_back(s.mul(f.at(acc, e), alpha[e >> 1]));
    out.acc.push_back(f.vector(scaled, f32));
  }
  for (int64_t u = 0; u < shape.keyTile / kMmaRows; ++u) {
    Values a;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t e = 0; e < 4; ++e)
        a.push_back(s.cast(kept[2 * u + half][e], f.element));
    Value probs = f.vector(a, f.element);
    for (int64_t c = 0; c < shape.nTiles; ++c) {
      Values elements;
      for (int64_t i = 0; i < 4; ++i) {
        Value key = x.add(x.add(j0, x.c(16 * u + (i & 1) + 8 * (i >> 1))), x.mul(r.t, x.c(2)));
        Value col = x.add(x.c(8 * c), r.g);
        elements.push_back(f.load(p.value, {r.b, r.kh, clamp(key), col}));
      }
      out.acc[c] = f.mma(probs, f.vector(elements, f.element), out.acc[c]);
    }
  }
  return out;
}

} // namespace

FailureOr<Values> lowerMmaAttention(FusedAttentionOp op, const AttentionProblem &p,
                                    LinalgBuilder &lb) {
  TaskShape shape = taskShape(p);
  int64_t tasks = p.batch * p.heads * shape.queryTiles;
  auto out = tensorOf(op.getOutput()), lse = tensorOf(op.getLse());
  Values inits{lb.empty(out.getShape(), out.getElementType()),
               lb.empty(lse.getShape(), lse.getElementType())};
  Values results = forRange(
      lb.builder(), lb.location(), tasks, inits,
      [&](OpBuilder &b, Location l, Value task, ValueRange outs) -> Values {
        Fragments f{Scalar{b, l}, Index{b, l}, p.element};
        const Scalar &s = f.s;
        const Index &x = f.x;
        Type f32 = b.getF32Type();
        Value lane = LaneIdOp::create(b, l, b.getIndexType(), task);
        TaskRows r;
        r.g = x.div(lane, 4);
        r.t = x.rem(lane, 4);
        Value bh = x.div(task, shape.queryTiles), tile = x.rem(task, shape.queryTiles);
        // Causal: a (batch, head)'s longest rows first.
        if (p.causal)
          tile = x.sub(x.c(shape.queryTiles - 1), tile);
        r.b = x.div(bh, p.heads);
        r.h = x.rem(bh, p.heads);
        r.kh = x.div(r.h, p.group);
        Value i0 = x.mul(tile, x.c(kMmaRows));
        r.row[0] = x.add(i0, r.g);
        r.row[1] = x.add(r.row[0], x.c(8));
        // Q's A fragments, loaded once.
        Values queryFragments;
        for (int64_t st = 0; st < shape.kSteps; ++st) {
          Values elements;
          for (int64_t i = 0; i < 8; ++i) {
            Value col = x.add(x.mul(r.t, x.c(2)), x.c(16 * st + (i & 1) + 8 * (i >> 2)));
            elements.push_back(f.load(p.query, {r.b, r.h, r.row[(i >> 1) & 1], col}));
          }
          queryFragments.push_back(f.vector(elements, p.element));
        }
        // Tiles up to the last key the task's last row sees: the same for
        // every lane (a uniform loop around the warp's MMAs).
        Value tiles = x.ceilDiv(p.keyLimit(x, x.add(i0, x.c(kMmaRows - 1))), shape.keyTile);
        Running start;
        start.acc.assign(shape.nTiles, f.zeros());
        for (int k = 0; k < 2; ++k) {
          start.max[k] = s.c(f32, negInf());
          start.sum[k] = s.c(f32, 0.0);
        }
        Values walk = loopTo(s, tiles, start.flat(), [&](Scalar t, Value keyTileIndex,
                                                         ValueRange carried) {
          Fragments ft{t, Index{t.b, t.l}, p.element};
          return keyTile(ft, p, shape, r, queryFragments, keyTileIndex,
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
          Value v = s.add(end.max[k], math::LogOp::create(b, l, end.sum[k]));
          logSum = s.put(s.select(none, s.c(f32, negInf()), v), logSum, {r.b, r.h, r.row[k]});
        }
        return Values{o, logSum};
      });
  Operation *loop = results.front().getDefiningOp();
  loop->setAttr(kWarpTasksAttrName, lb.builder().getI64IntegerAttr(kWarpsPerBlock));
  return results;
}

} // namespace mt
