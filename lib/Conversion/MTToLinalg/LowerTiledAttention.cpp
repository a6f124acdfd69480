//===- LowerTiledAttention.cpp - FlashAttention in blocks of rows (CPU) ---===//
//
// The CPU's form of mt.fused_attention and its gradient. The row kernels
// (LowerFusedAttention.cpp, the GPU's form: a thread per row) read every key
// tile once per query row, with scalar dot products. Here a tile of query
// rows meets a tile of keys at once: the scores, the probabilities times
// the values and every gradient product are matrix products of tiles
// (mt-convert-contractions-to-blas makes them GEMM calls), and the softmax
// steps are elementwise loops over one [query tile, key tile] block. No
// score-sized tensor exists; the scratch is a few tiles, carried through
// the loops so nothing is allocated inside them (mt-plan-buffers).
//
// Forward, per (batch, head, query tile): over the key tiles its rows see
// (causal: up to its last row's limit), S = scale Q K^T masked, the running
// row maximum m and sum l updated, acc = acc exp(m_old - m) + drop(P) V;
// then o = acc / l and lse = m + log l.
// Gradient, per (batch, key head, key tile), so the tile's dK and dV are
// sums inside the tile: over the group's heads and the query tiles that see
// it, P = exp(scale Q K^T - lse), dV += drop(P)^T dO, dS = P (drop(dO V^T) -
// D) scale, dK += dS^T Q, dQ += dS K. One thread runs the loops, so dQ's
// sum over key tiles has one fixed order.
//
//===----------------------------------------------------------------------===//
#include "FusedAttentionKernel.h"
#include "Lowerings.h"

#include "mt/Analysis/ModelInfo.h"

using namespace mlir;

namespace mt {
namespace {

using Values = SmallVector<Value>;
using Iter = utils::IteratorType;

/// The largest divisor of n not above `limit`: tiles that cover n exactly.
int64_t tileOf(int64_t n, int64_t limit) {
  for (int64_t t = std::min(n, limit); t > 1; --t)
    if (n % t == 0)
      return t;
  return 1;
}

/// A body over one [rows, cols] tile: the inputs' elements (cells, then
/// row values), the output's element, and the tile's row and column.
using CellFn = function_ref<Value(Scalar, ValueRange in, Value out, Value r, Value c)>;
/// A body over one [rows] vector: the inputs' elements, the output's.
using RowValueFn = function_ref<Value(Scalar, ValueRange in, Value out)>;

/// Tile-level IR at one builder position; every op writes into a tensor it
/// is given, so carried scratch bufferizes in place.
struct TileOps {
  OpBuilder &b;
  Location l;

  /// The block of `source` at `offsets` with `sizes`, as a tensor of the
  /// last `rank` sizes (the leading sizes are 1): a view, not a copy.
  Value slice(Value source, ArrayRef<Value> offsets, ArrayRef<int64_t> sizes, unsigned rank) const {
    auto [offs, szs, strides] = box(offsets, sizes);
    auto type = RankedTensorType::get(sizes.take_back(rank), tensorOf(source).getElementType());
    return tensor::ExtractSliceOp::create(b, l, type, source, offs, szs, strides);
  }
  /// `tile` written over the block of `dest` that `slice` reads.
  Value insert(Value tile, Value dest, ArrayRef<Value> offsets, ArrayRef<int64_t> sizes) const {
    auto [offs, szs, strides] = box(offsets, sizes);
    return tensor::InsertSliceOp::create(b, l, tile, dest, offs, szs, strides);
  }
  Value fill(Value tensor, double v) const {
    Value c = arith::ConstantOp::create(b, l, b.getFloatAttr(tensorOf(tensor).getElementType(), v));
    return linalg::FillOp::create(b, l, c, tensor).getResult(0);
  }
  /// init[m, n] += sum_k A[m, k] B[k, n], with A and B read transposed
  /// where asked: a GEMM.
  Value product(Value a, bool transA, Value bm, bool transB, Value init) const {
    LinalgBuilder lb(b, l);
    auto map = [&](unsigned x, unsigned y) {
      return AffineMap::get(3, 0, {b.getAffineDimExpr(x), b.getAffineDimExpr(y)}, b.getContext());
    };
    return lb.contract(a, transA ? map(2, 0) : map(0, 2), bm, transB ? map(1, 2) : map(2, 1),
                       tensorOf(init).getShape(), map(0, 1), {false, false, true}, init);
  }
  /// out[r, c] = body(...) over a [rows, cols] tile, in place.
  Value cells(Value out, ValueRange cellInputs, ValueRange rowInputs, CellFn body) const {
    LinalgBuilder lb(b, l);
    Values inputs(cellInputs);
    inputs.append(rowInputs.begin(), rowInputs.end());
    SmallVector<AffineMap> maps(cellInputs.size(), lb.identity(2));
    maps.append(rowInputs.size(), lb.dropLastMap(2));
    return lb.generic(inputs, maps, out, lb.identity(2), lb.parallel(2),
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Value r = linalg::IndexOp::create(nb, nl, 0);
                        Value c = linalg::IndexOp::create(nb, nl, 1);
                        return body(Scalar{nb, nl}, a.drop_back(), a.back(), r, c);
                      });
  }
  /// out[r] = body(...) over [rows] vectors, in place.
  Value rows(Value out, ValueRange inputs, RowValueFn body) const {
    LinalgBuilder lb(b, l);
    SmallVector<AffineMap> maps(inputs.size(), lb.identity(1));
    return lb.generic(inputs, maps, out, lb.identity(1), lb.parallel(1),
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        return body(Scalar{nb, nl}, a.drop_back(), a.back());
                      });
  }
  /// out[r] = combine(out[r], tile[r, c]) over the tile's columns.
  Value reduceRows(Value out, Value tile, bool max) const {
    LinalgBuilder lb(b, l);
    return lb.generic(tile, lb.identity(2), out, lb.dropLastMap(2),
                      {Iter::parallel, Iter::reduction},
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        Scalar s{nb, nl};
                        return max ? s.max(a[1], a[0]) : s.add(a[1], a[0]);
                      });
  }

private:
  std::tuple<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
  box(ArrayRef<Value> offsets, ArrayRef<int64_t> sizes) const {
    SmallVector<OpFoldResult> offs, szs, strides;
    for (auto [o, s] : llvm::zip(offsets, sizes)) {
      offs.push_back(o);
      szs.push_back(b.getIndexAttr(s));
      strides.push_back(b.getIndexAttr(1));
    }
    return {offs, szs, strides};
  }
};

/// The tiling of one problem.
struct Tiling {
  const AttentionProblem &p;
  int64_t bq, bk;

  explicit Tiling(const AttentionProblem &p)
      : p(p), bq(tileOf(p.queries, p.tile)), bk(tileOf(p.keys, p.tile)) {}

  /// Where the [bq, head_dim] block of query rows i0.. of head h sits in
  /// the output (or its gradient), merged or not.
  std::pair<Values, SmallVector<int64_t>> outputBlock(Index x, Value b, Value h, Value i0) const {
    if (p.merged)
      return {{b, i0, x.mul(h, x.c(p.headDim))}, {1, bq, p.headDim}};
    return {{b, h, i0, x.c(0)}, {1, 1, bq, p.headDim}};
  }
  /// Whether query i0 + r sees key j0 + c (true when nothing masks).
  Value sees(Scalar s, Value b, Value i0, Value j0, Value r, Value c) const {
    Index x{s.b, s.l};
    Value seen = p.sees(s, b, x.add(i0, r), x.add(j0, c));
    return seen ? seen : arith::ConstantIntOp::create(s.b, s.l, 1, 1).getResult();
  }
  /// v as the dropout leaves it at (b, h, i0 + r, j0 + c).
  Value dropped(Scalar s, Value v, Value b, Value h, Value i0, Value j0, Value r, Value c) const {
    Index x{s.b, s.l};
    return p.dropped(s, v, b, h, x.add(i0, r), x.add(j0, c));
  }
};

/// One step of a task: the task's index, the step's, and what is carried
/// (the outputs, then the task's scratch); returns the new carried values.
using TaskStepFn =
    function_ref<Values(OpBuilder &, Location, Value task, Value step, ValueRange carried)>;

/// A loop over `tasks`, each `steps` steps in order, whose tasks write
/// disjoint parts of `outputs`, each with scratch of its own (a slot of a
/// [tasks, shape...] tensor per scratch shape), so the task loop is marked
/// mt.parallel_tasks: on the CPU, mt-parallelize-loops gives its
/// iterations to worker threads.
Values overTasks(LinalgBuilder &lb, int64_t tasks, int64_t steps, ValueRange outputs,
                 ArrayRef<SmallVector<int64_t>> scratch, Type element, TaskStepFn body) {
  Values inits(outputs);
  for (ArrayRef<int64_t> shape : scratch) {
    SmallVector<int64_t> slots{tasks};
    slots.append(shape.begin(), shape.end());
    inits.push_back(lb.empty(slots, element));
  }
  size_t numOutputs = outputs.size();
  Values results =
      forRange(lb.builder(), lb.location(), tasks, inits,
               [&](OpBuilder &b, Location l, Value n, ValueRange st) {
                 TileOps t{b, l};
                 Index x{b, l};
                 auto place = [&](ArrayRef<int64_t> shape) {
                   Values at{n};
                   SmallVector<int64_t> sizes{1};
                   for (int64_t size : shape) {
                     at.push_back(x.c(0));
                     sizes.push_back(size);
                   }
                   return std::make_pair(at, sizes);
                 };
                 Values slots;
                 for (auto [shape, whole] : llvm::zip(scratch, st.drop_front(numOutputs))) {
                   auto [at, sizes] = place(shape);
                   slots.push_back(t.slice(whole, at, sizes, shape.size()));
                 }
                 Values carried(st.take_front(numOutputs));
                 carried.append(slots.begin(), slots.end());
                 Values done = forRange(b, l, steps, carried,
                                        [&](OpBuilder &sb, Location sl, Value step, ValueRange c) {
                                          return body(sb, sl, n, step, c);
                                        });
                 Values next(ArrayRef<Value>(done).take_front(numOutputs));
                 for (auto [shape, slot, whole] :
                      llvm::zip(scratch, ArrayRef<Value>(done).drop_front(numOutputs),
                                st.drop_front(numOutputs))) {
                   auto [at, sizes] = place(shape);
                   next.push_back(t.insert(slot, whole, at, sizes));
                 }
                 return next;
               });
  if (Operation *loop = results.front().getDefiningOp())
    loop->setAttr(kParallelTasksAttrName, lb.builder().getUnitAttr());
  results.resize(numOutputs);
  return results;
}

Lowered lowerForward(FusedAttentionOp op, const AttentionProblem &p, LinalgBuilder &lb) {
  Tiling tl(p);
  int64_t bq = tl.bq, bk = tl.bk, d = p.headDim, queryTiles = p.queries / bq;
  Type ct = p.compute;
  double ninf = negInf();
  auto out = tensorOf(op.getOutput()), lse = tensorOf(op.getLse());
  // A task per (batch, head), its query tiles in order. Scratch: scores,
  // acc, max, sum, the tile's max, the rescale.
  Values outputs{lb.empty(out.getShape(), out.getElementType()),
                 lb.empty(lse.getShape(), lse.getElementType())};
  SmallVector<SmallVector<int64_t>> scratch{{bq, bk}, {bq, d}, {bq}, {bq}, {bq}, {bq}};
  Values results = overTasks(
      lb, p.batch * p.heads, queryTiles, outputs, scratch, ct,
      [&](OpBuilder &ob, Location ol, Value n, Value qt, ValueRange st) {
        Index x{ob, ol};
        TileOps t{ob, ol};
        Value b = x.div(n, p.heads), h = x.rem(n, p.heads), kh = x.div(h, p.group);
        Value i0 = x.mul(qt, x.c(bq)), zero = x.c(0);
        Value q = t.slice(p.query, {b, h, i0, zero}, {1, 1, bq, d}, 2);
        Value keyTiles = x.ceilDiv(p.keyLimit(x, x.add(i0, x.c(bq - 1))), bk);
        Values walk = forRangeTo(
            ob, ol, keyTiles,
            {st[2], t.fill(st[3], 0.0), t.fill(st[4], ninf), t.fill(st[5], 0.0), st[6], st[7]},
            [&](OpBuilder &kb, Location kl, Value tile, ValueRange w) {
              Index y{kb, kl};
              TileOps u{kb, kl};
              Value j0 = y.mul(tile, y.c(bk));
              Value k = u.slice(p.key, {b, kh, j0, zero}, {1, 1, bk, d}, 2);
              Value v = u.slice(p.value, {b, kh, j0, zero}, {1, 1, bk, d}, 2);
              Value s = u.product(q, false, k, true, u.fill(w[0], 0.0));
              s = u.cells(s, {}, {}, [&](Scalar e, ValueRange, Value z, Value r, Value c) {
                return e.select(tl.sees(e, b, i0, j0, r, c), e.mul(z, e.c(ct, p.scale)),
                                e.c(ct, ninf));
              });
              Value m = w[2], l = w[3];
              Value top = u.reduceRows(u.fill(w[4], ninf), s, /*max=*/true);
              top = u.rows(top, {m},
                           [&](Scalar e, ValueRange in, Value o) { return e.max(o, in[0]); });
              Value alpha = u.rows(w[5], {m, top}, [&](Scalar e, ValueRange in, Value) {
                return e.select(e.eq(in[0], e.c(ct, ninf)), e.c(ct, 0.0),
                                e.exp(e.sub(in[0], in[1])));
              });
              s = u.cells(s, {}, {top}, [&](Scalar e, ValueRange in, Value z, Value, Value) {
                return e.select(e.eq(z, e.c(ct, ninf)), e.c(ct, 0.0), e.exp(e.sub(z, in[0])));
              });
              l = u.rows(l, {alpha},
                         [&](Scalar e, ValueRange in, Value o) { return e.mul(o, in[0]); });
              l = u.reduceRows(l, s, /*max=*/false);
              m = u.rows(m, {top}, [&](Scalar, ValueRange in, Value) { return in[0]; });
              if (p.dropout)
                s = u.cells(s, {}, {}, [&](Scalar e, ValueRange, Value z, Value r, Value c) {
                  return tl.dropped(e, z, b, h, i0, j0, r, c);
                });
              Value acc =
                  u.cells(w[1], {}, {alpha}, [&](Scalar e, ValueRange in, Value o, Value, Value) {
                    return e.mul(o, in[0]);
                  });
              acc = u.product(s, false, v, false, acc);
              return Values{s, acc, m, l, top, alpha};
            });
        Value acc = walk[1], m = walk[2], l = walk[3];
        auto [at, sizes] = tl.outputBlock(x, b, h, i0);
        Value o = t.cells(t.slice(st[0], at, sizes, 2), {acc}, {l},
                          [&](Scalar e, ValueRange in, Value, Value, Value) {
                            return e.divOrZero(in[0], in[1]);
                          });
        Values lseAt{b, h, i0};
        Value logSum = t.rows(t.slice(st[1], lseAt, {1, 1, bq}, 1), {m, l},
                              [&](Scalar e, ValueRange in, Value) {
                                Value none = e.eq(in[1], e.c(ct, 0.0));
                                Value ls = e.add(in[0], math::LogOp::create(e.b, e.l, in[1]));
                                return e.select(none, e.c(ct, ninf), ls);
                              });
        return Values{t.insert(o, st[0], at, sizes),
                      t.insert(logSum, st[1], lseAt, {1, 1, bq}),
                      walk[0],
                      acc,
                      m,
                      l,
                      walk[4],
                      walk[5]};
      });
  return Values{results[0], results[1]};
}

/// D[b, h, i] = dO[b, h, i, :] . o[b, h, i, :], read in the output's layout
/// (merged heads as a [batch, queries, heads, head_dim] view).
Value rowDeltas(FusedAttentionGradOp op, const AttentionProblem &p, LinalgBuilder &lb) {
  OpBuilder &b = lb.builder();
  AffineExpr db = b.getAffineDimExpr(0), dh = b.getAffineDimExpr(1), di = b.getAffineDimExpr(2),
             dc = b.getAffineDimExpr(3);
  Value dOut = op.getGradOutput(), out = op.getOutput();
  AffineMap read = lb.identity(4);
  if (p.merged) {
    dOut = lb.reshape(dOut, {p.batch, p.queries, p.heads, p.headDim});
    out = lb.reshape(out, {p.batch, p.queries, p.heads, p.headDim});
    read = AffineMap::get(4, 0, {db, di, dh, dc}, b.getContext());
  }
  Value init = lb.filled({p.batch, p.heads, p.queries}, p.compute, 0.0);
  return lb.generic({dOut, out}, {read, read}, init, lb.dropLastMap(4),
                    {Iter::parallel, Iter::parallel, Iter::parallel, Iter::reduction},
                    [](OpBuilder &nb, Location nl, ValueRange a) {
                      Scalar s{nb, nl};
                      return s.add(a[2], s.mul(a[0], a[1]));
                    });
}

Lowered lowerGrad(FusedAttentionGradOp op, const AttentionProblem &p, LinalgBuilder &lb) {
  Tiling tl(p);
  int64_t bq = tl.bq, bk = tl.bk, d = p.headDim, queryTiles = p.queries / bq,
          keyTiles = p.keys / bk;
  Type ct = p.compute;
  Value deltas = rowDeltas(op, p, lb), dOut = op.getGradOutput(), lse = op.getLse();
  auto q = tensorOf(p.query), k = tensorOf(p.key);
  // A task per (batch, key head), its key tiles in order: the task alone
  // writes its heads' dq, so dq's sum over key tiles keeps one order.
  // Scratch: probabilities, their gradient, the dropped probabilities, the
  // key tile's dk and dv.
  Values outputs{lb.filled(q.getShape(), ct, 0.0), lb.empty(k.getShape(), k.getElementType()),
                 lb.empty(k.getShape(), k.getElementType())};
  SmallVector<SmallVector<int64_t>> scratch{{bq, bk}, {bq, bk}, {bq, bk}, {bk, d}, {bk, d}};
  Values results = overTasks(
      lb, p.batch * p.kvHeads, keyTiles, outputs, scratch, ct,
      [&](OpBuilder &ob, Location ol, Value n, Value kt, ValueRange st) {
        Index x{ob, ol};
        TileOps t{ob, ol};
        Value b = x.div(n, p.kvHeads), kh = x.rem(n, p.kvHeads);
        Value j0 = x.mul(kt, x.c(bk)), zero = x.c(0);
        Value key = t.slice(p.key, {b, kh, j0, zero}, {1, 1, bk, d}, 2);
        Value value = t.slice(p.value, {b, kh, j0, zero}, {1, 1, bk, d}, 2);
        Value first = x.div(p.queryStart(x, j0), bq);
        Value count = x.sub(x.c(queryTiles), first);
        Values group = forRange(
            ob, ol, p.group, {st[0], st[3], st[4], st[5], t.fill(st[6], 0.0), t.fill(st[7], 0.0)},
            [&](OpBuilder &gb, Location gl, Value hh, ValueRange gs) {
              Index g{gb, gl};
              Value h = g.add(g.mul(kh, g.c(p.group)), hh);
              return forRangeTo(
                  gb, gl, count, gs, [&](OpBuilder &qb, Location ql, Value tile, ValueRange w) {
                    Index y{qb, ql};
                    TileOps u{qb, ql};
                    Value i0 = y.mul(y.add(first, tile), y.c(bq));
                    Values rowAt{b, h, i0, zero};
                    Value query = u.slice(p.query, rowAt, {1, 1, bq, d}, 2);
                    auto [at, sizes] = tl.outputBlock(y, b, h, i0);
                    Value dO = u.slice(dOut, at, sizes, 2);
                    Values vecAt{b, h, i0};
                    Value rowLse = u.slice(lse, vecAt, {1, 1, bq}, 1);
                    Value rowDelta = u.slice(deltas, vecAt, {1, 1, bq}, 1);
                    Value prob = u.product(query, false, key, true, u.fill(w[1], 0.0));
                    prob = u.cells(prob, {}, {rowLse},
                                   [&](Scalar e, ValueRange in, Value z, Value r, Value c) {
                                     Value p0 = e.exp(
                                         e.sub(e.mul(z, e.c(ct, p.scale)), e.cast(in[0], ct)));
                                     return e.select(tl.sees(e, b, i0, j0, r, c), p0, e.c(ct, 0.0));
                                   });
                    Value dprob = u.product(dO, false, value, true, u.fill(w[2], 0.0));
                    Value kept = prob;
                    if (p.dropout)
                      kept = u.cells(w[3], {prob}, {},
                                     [&](Scalar e, ValueRange in, Value, Value r, Value c) {
                                       return tl.dropped(e, in[0], b, h, i0, j0, r, c);
                                     });
                    Value dv = u.product(kept, true, dO, false, w[5]);
                    Value ds =
                        u.cells(dprob, {prob}, {rowDelta},
                                [&](Scalar e, ValueRange in, Value z, Value r, Value c) {
                                  Value dp = tl.dropped(e, z, b, h, i0, j0, r, c);
                                  return e.mul(e.mul(in[0], e.sub(dp, in[1])), e.c(ct, p.scale));
                                });
                    Value dk = u.product(ds, true, query, false, w[4]);
                    Value dq =
                        u.product(ds, false, key, false, u.slice(w[0], rowAt, {1, 1, bq, d}, 2));
                    return Values{u.insert(dq, w[0], rowAt, {1, 1, bq, d}),
                                  prob,
                                  ds,
                                  p.dropout ? kept : w[3],
                                  dk,
                                  dv};
                  });
            });
        Values tileAt{b, kh, j0, zero};
        return Values{group[0],
                      t.insert(group[4], st[1], tileAt, {1, 1, bk, d}),
                      t.insert(group[5], st[2], tileAt, {1, 1, bk, d}),
                      group[1],
                      group[2],
                      group[3],
                      group[4],
                      group[5]};
      });
  return Values{results[0], results[1], results[2]};
}

} // namespace

bool hasTiledAttention(Type element) { return element.isF32() || element.isF64(); }

Lowered lowerTiledAttention(FusedAttentionOp op, const AttentionProblem &p, LinalgBuilder &lb) {
  return lowerForward(op, p, lb);
}

Lowered lowerTiledAttentionGrad(FusedAttentionGradOp op, const AttentionProblem &p,
                                LinalgBuilder &lb) {
  return lowerGrad(op, p, lb);
}

} // namespace mt
