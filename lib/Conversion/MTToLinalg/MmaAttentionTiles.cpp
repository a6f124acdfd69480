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

Value Fragments::group(Value tensor, ValueRange indices, int64_t width) const {
  auto type = VectorType::get({width}, element);
  Value padding = s.c(element, 0.0);
  return vector::TransferReadOp::create(s.b, s.l, type, tensor, indices, padding,
                                        ArrayRef<bool>{true});
}

Value Fragments::bFragment(Value group, int64_t step, int64_t width) const {
  if (width == 4)
    return group;
  int64_t o = 4 * (step % 2);
  return vector({at(group, o), at(group, o + 1), at(group, o + 2), at(group, o + 3)}, element);
}

Value Fragments::aFragment(Value upper, Value lower, int64_t step, int64_t width) const {
  // Element i: row half (i >> 1) & 1, k-column 2t + (i & 1) + 8 (i >> 2),
  // which is element o + (i & 1) + 2 (i >> 2) of that row's group.
  int64_t o = width == 8 ? 4 * (step % 2) : 0;
  Values elements;
  for (int64_t i = 0; i < 8; ++i)
    elements.push_back(at((i >> 1) & 1 ? lower : upper, o + (i & 1) + 2 * (i >> 2)));
  return vector(elements, element);
}

Value Fragments::mma(Value a, Value b, Value c) const {
  return WarpMmaOp::create(s.b, s.l, c.getType(), a, b, c, s.b.getDenseI64ArrayAttr({16, 8, 16}));
}

Value Fragments::quad(Value v, gpu::AllReduceOperation kind) const {
  return gpu::SubgroupReduceOp::create(s.b, s.l, v, kind, /*uniform=*/true, /*cluster_size=*/4);
}

Value groupStart(Index x, Value base, Value t, int64_t step, int64_t width) {
  // A group holds width / 4 steps: 16 (width / 4) columns, lane t's from
  // width t.
  int64_t perGroup = width / 4;
  return x.add(x.add(base, x.c(16 * perGroup * (step / perGroup))), x.mul(t, x.c(width)));
}

Value tileColumn(Index x, Value base, int64_t nTiles, int64_t n, Value pair, Value odd) {
  // Step u takes n-tiles 2u and 2u + 1, its k-column 2t + (i & 1) + 8
  // (i >> 1) being column 2t + (i & 1) of n-tile 2u + (i >> 1): element
  // 4 (u % (width / 4)) + i of lane t's group.
  int64_t width = groupWidth(nTiles / 2), perGroup = width / 2;
  Value first = x.add(base, x.c(4 * width * (n / perGroup) + 2 * (n % perGroup)));
  return x.add(x.add(first, x.mul(pair, x.c(width))), odd);
}

LinalgBuilder transposing(LinalgBuilder &lb) {
  StringAttr name = lb.builder().getStringAttr("attention_transpose");
  return LinalgBuilder(lb.builder(), NameLoc::get(name, lb.location()));
}

Value transposedRows(LinalgBuilder &outer, Value tensor) {
  LinalgBuilder lb = transposing(outer);
  auto type = tensorOf(tensor);
  ArrayRef<int64_t> shape = type.getShape();
  MLIRContext *context = lb.builder().getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(context, d0, d1, d2, d3);
  auto read = AffineMap::get(4, 0, {d0, d1, d3, d2}, context);
  Value init = lb.empty({shape[0], shape[1], shape[3], shape[2]}, type.getElementType());
  return lb.generic({tensor}, {read}, init, lb.identity(4),
                    SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                    [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value Fragments::exp2(Value v) const { return math::Exp2Op::create(s.b, s.l, v); }

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

Value TaskRows::keyOf(Index x, const TaskShape &shape, Value j0, int64_t n, int64_t e) const {
  return tileColumn(x, j0, shape.keyNTiles(), n, t, x.c(e & 1));
}

Value TaskRows::tiles(Index x, const AttentionProblem &p, const TaskShape &shape) const {
  return x.ceilDiv(p.keyLimit(x, x.add(first, x.c(kMmaRows - 1))), shape.keyTile);
}

Values rowFragments(const Fragments &f, int64_t steps, const Value (&rows)[2], Value t,
                    Value tensor, function_ref<Values(Value, Value)> at) {
  const Index &x = f.x;
  int64_t width = groupWidth(steps);
  Values fragments;
  for (int64_t st = 0; st < steps; ++st) {
    if (st % (width / 4) == 0) {
      Value col = groupStart(x, x.c(0), t, st, width);
      Value upper = f.group(tensor, at(rows[0], col), width);
      Value lower = f.group(tensor, at(rows[1], col), width);
      for (int64_t k = st; k < st + width / 4; ++k)
        fragments.push_back(f.aFragment(upper, lower, k, width));
    }
  }
  return fragments;
}

Values tileProducts(const Fragments &f, Value g, Value t, ArrayRef<Value> a, int64_t nTiles,
                    Value base, int64_t rows, Value tensor, function_ref<Values(Value, Value)> at) {
  const Index &x = f.x;
  int64_t steps = a.size(), width = groupWidth(steps);
  Value pair = x.div(g, 2), odd = x.rem(g, 2);
  Values products;
  for (int64_t n = 0; n < nTiles; ++n) {
    // B[k, n] = row (column g of the n-tile) at k-column k: the lane's group.
    Value row = x.min(tileColumn(x, base, nTiles, n, pair, odd), x.c(rows - 1));
    Value c = f.zeros();
    Value group;
    for (int64_t st = 0; st < steps; ++st) {
      if (st % (width / 4) == 0)
        group = f.group(tensor, at(row, groupStart(x, x.c(0), t, st, width)), width);
      c = f.mma(a[st], f.bFragment(group, st, width), c);
    }
    products.push_back(c);
  }
  return products;
}

void addTransposedProducts(const Fragments &f, Value g, Value t, ArrayRef<Values> weights,
                           Value base, int64_t columns, Value transposed,
                           function_ref<Values(Value, Value)> at, SmallVectorImpl<Value> &acc) {
  const Index &x = f.x;
  int64_t steps = weights.size() / 2, width = groupWidth(steps);
  for (int64_t u = 0; u < steps; u += width / 4) {
    // Score n-tiles 2u and 2u + 1, their C layout read as one A fragment.
    Values a;
    for (int64_t k = u; k < u + width / 4; ++k) {
      Values elements;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t e = 0; e < 4; ++e)
          elements.push_back(f.s.cast(weights[2 * k + half][e], f.element));
      a.push_back(f.vector(elements, f.element));
    }
    // Columns come in whole groups (columns % 16 == 0): one past the last
    // is wholly past it.
    Value start = x.min(groupStart(x, base, t, u, width), x.c(columns - width));
    for (size_t c = 0; c < acc.size(); ++c) {
      Value group = f.group(transposed, at(x.add(x.c(8 * c), g), start), width);
      for (int64_t k = u; k < u + width / 4; ++k)
        acc[c] = f.mma(a[k - u], f.bFragment(group, k, width), acc[c]);
    }
  }
}

SmallVector<Values> maskedScores(const Fragments &f, const AttentionProblem &p,
                                 const TaskShape &shape, const TaskRows &r,
                                 ArrayRef<Value> scores, Value j0) {
  const Scalar &s = f.s;
  const Index &x = f.x;
  Type f32 = s.b.getF32Type();
  Value limit[2] = {p.keyLimit(x, r.row[0]), p.keyLimit(x, r.row[1])};
  SmallVector<Values> z;
  for (auto [n, tile] : llvm::enumerate(scores)) {
    Values masked;
    for (int64_t e = 0; e < 4; ++e) {
      Value j = r.keyOf(x, shape, j0, n, e);
      Value seen = x.lt(j, limit[e >> 1]);
      if (p.keyMask)
        seen = arith::AndIOp::create(s.b, s.l, seen,
                                     s.at(p.keyMask, {r.b, x.min(j, x.c(p.keys - 1))}));
      Value scaled = s.mul(f.at(tile, e), s.c(f32, p.scale * kLog2E));
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
