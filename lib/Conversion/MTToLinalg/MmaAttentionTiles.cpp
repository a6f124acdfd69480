//===- MmaAttentionTiles.cpp - per-lane pieces of the tensor-core attention ===//
#include "MmaAttentionTiles.h"

#include "Lowerings.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Transforms/MmaAttention.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mt {

using Values = SmallVector<Value>;

Value Fragments::vector(ArrayRef<Value> elements, Type type) const {
  return vector::FromElementsOp::create(
      s.b, s.l, VectorType::get({static_cast<int64_t>(elements.size())}, type), elements);
}

Value Fragments::at(Value v, int64_t i) const { return vector::ExtractOp::create(s.b, s.l, v, i); }

Value Fragments::zeros() const {
  Value zero = s.c(s.b.getF32Type(), 0.0);
  return vector({zero, zero, zero, zero}, s.b.getF32Type());
}

Value Fragments::load(Value tensor, ValueRange indices) const {
  return tensor::ExtractOp::create(s.b, s.l, tensor, indices);
}

Value Fragments::mma(Value a, Value b, Value c) const {
  return WarpMmaOp::create(s.b, s.l, c.getType(), a, b, c, s.b.getDenseI64ArrayAttr({16, 8, 16}));
}

Value Fragments::quad(Value v, gpu::AllReduceOperation kind) const {
  return gpu::SubgroupReduceOp::create(s.b, s.l, v, kind, /*uniform=*/true, /*cluster_size=*/4);
}

TaskShape TaskShape::of(const AttentionProblem &p) {
  // Registers: a tile's scores are keyTile / 2 f32 a lane beside the D / 2
  // of the accumulator.
  int64_t keyTile = p.headDim <= 64 ? 64 : 32;
  return {p.queries / kMmaRows, keyTile, p.headDim / 8, p.headDim / kMmaRows};
}

TaskRows TaskRows::of(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                      Value task) {
  const Index &x = f.x;
  TaskRows r;
  Value lane = LaneIdOp::create(f.s.b, f.s.l, f.s.b.getIndexType(), task);
  r.g = x.div(lane, 4);
  r.t = x.rem(lane, 4);
  Value bh = x.div(task, shape.queryTiles), tile = x.rem(task, shape.queryTiles);
  if (p.causal)
    tile = x.sub(x.c(shape.queryTiles - 1), tile);
  r.b = x.div(bh, p.heads);
  r.h = x.rem(bh, p.heads);
  r.kh = x.div(r.h, p.group);
  r.first = x.mul(tile, x.c(kMmaRows));
  r.row[0] = x.add(r.first, r.g);
  r.row[1] = x.add(r.row[0], x.c(8));
  return r;
}

Value TaskRows::keyOf(Index x, Value j0, int64_t n, int64_t e) const {
  return x.add(x.add(j0, x.c(8 * n + (e & 1))), x.mul(t, x.c(2)));
}

Value TaskRows::tiles(Index x, const AttentionProblem &p, const TaskShape &shape) const {
  return x.ceilDiv(p.keyLimit(x, x.add(first, x.c(kMmaRows - 1))), shape.keyTile);
}

Values rowFragments(const Fragments &f, const TaskShape &shape, const TaskRows &r, Value tensor,
                    function_ref<Values(Value, Value)> at) {
  const Index &x = f.x;
  Values fragments;
  for (int64_t st = 0; st < shape.kSteps; ++st) {
    Values elements;
    for (int64_t i = 0; i < 8; ++i) {
      Value col = x.add(x.mul(r.t, x.c(2)), x.c(16 * st + (i & 1) + 8 * (i >> 2)));
      elements.push_back(f.load(tensor, at(r.row[(i >> 1) & 1], col)));
    }
    fragments.push_back(f.vector(elements, f.element));
  }
  return fragments;
}

Values keyProducts(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                   const TaskRows &r, ArrayRef<Value> a, Value keyed, Value j0) {
  const Index &x = f.x;
  Values products;
  for (int64_t n = 0; n < shape.keyNTiles(); ++n) {
    // B[k, n] = keyed[key j0 + 8n + g, column k]: pairs along the row.
    Value key = x.min(x.add(x.add(j0, x.c(8 * n)), r.g), x.c(p.keys - 1));
    Value c = f.zeros();
    for (int64_t st = 0; st < shape.kSteps; ++st) {
      Values elements;
      for (int64_t i = 0; i < 4; ++i) {
        Value col = x.add(x.mul(r.t, x.c(2)), x.c(16 * st + (i & 1) + 8 * (i >> 1)));
        elements.push_back(f.load(keyed, {r.b, r.kh, key, col}));
      }
      c = f.mma(a[st], f.vector(elements, f.element), c);
    }
    products.push_back(c);
  }
  return products;
}

void addValueProducts(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                      const TaskRows &r, ArrayRef<Values> weights, Value keyed, Value j0,
                      SmallVectorImpl<Value> &acc) {
  const Index &x = f.x;
  for (int64_t u = 0; u < shape.keySteps(); ++u) {
    // Score n-tiles 2u and 2u + 1, their C layout read as one A fragment.
    Values a;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t e = 0; e < 4; ++e)
        a.push_back(f.s.cast(weights[2 * u + half][e], f.element));
    Value probs = f.vector(a, f.element);
    for (int64_t c = 0; c < shape.nTiles; ++c) {
      // B[k, n] = keyed[key j0 + 16u + k, column 8c + n].
      Values elements;
      for (int64_t i = 0; i < 4; ++i) {
        Value key = x.add(x.add(j0, x.c(16 * u + (i & 1) + 8 * (i >> 1))), x.mul(r.t, x.c(2)));
        Value col = x.add(x.c(8 * c), r.g);
        elements.push_back(f.load(keyed, {r.b, r.kh, x.min(key, x.c(p.keys - 1)), col}));
      }
      acc[c] = f.mma(probs, f.vector(elements, f.element), acc[c]);
    }
  }
}

SmallVector<Values> maskedScores(const Fragments &f, const AttentionProblem &p,
                                 const TaskRows &r, ArrayRef<Value> scores, Value j0) {
  const Scalar &s = f.s;
  const Index &x = f.x;
  Type f32 = s.b.getF32Type();
  Value limit[2] = {p.keyLimit(x, r.row[0]), p.keyLimit(x, r.row[1])};
  SmallVector<Values> z;
  for (auto [n, tile] : llvm::enumerate(scores)) {
    Values masked;
    for (int64_t e = 0; e < 4; ++e) {
      Value j = r.keyOf(x, j0, n, e);
      Value seen = x.lt(j, limit[e >> 1]);
      if (p.keyMask)
        seen = arith::AndIOp::create(s.b, s.l, seen,
                                     s.at(p.keyMask, {r.b, x.min(j, x.c(p.keys - 1))}));
      Value scaled = s.mul(f.at(tile, e), s.c(f32, p.scale));
      masked.push_back(s.select(seen, scaled, s.c(f32, negInf())));
    }
    z.push_back(masked);
  }
  return z;
}

Values warpTasks(LinalgBuilder &lb, const AttentionProblem &p, const TaskShape &shape,
                 ValueRange carried,
                 function_ref<Values(const Fragments &, const TaskRows &, ValueRange)> body) {
  int64_t tasks = p.batch * p.heads * shape.queryTiles;
  Values results = forRange(lb.builder(), lb.location(), tasks, carried,
                            [&](OpBuilder &b, Location l, Value task, ValueRange outs) {
                              Fragments f{Scalar{b, l}, Index{b, l}, p.element};
                              return body(f, TaskRows::of(f, p, shape, task), outs);
                            });
  results.front().getDefiningOp()->setAttr(kWarpTasksAttrName,
                                           lb.builder().getI64IntegerAttr(kMmaWarpsPerBlock));
  return results;
}

} // namespace mt
