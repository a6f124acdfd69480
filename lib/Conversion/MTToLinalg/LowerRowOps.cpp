//===- LowerRowOps.cpp - row-wise ops, one loop nest each ------------------===//
//
// Norms, softmax and cross-entropy reduce over the last dimension and then
// map over it. Each lowers to a single loop nest, the fused op's one kernel
// on the CPU: a loop over the rows and, inside, scalar loops over one row
// (its reductions, then its writes). A row is re-read while it is in cache,
// intermediates stay in registers and only the results are written, so
// nothing is allocated inside the nest. Sums run left to right along a row
// and rows in order, as the unfused reductions did, so results are
// bit-identical to them.
//
//===----------------------------------------------------------------------===//
#include "Lowerings.h"
#include "RowKernel.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace mt {
namespace {

double negInfinity() { return negInf(); }

/// Mean (null without centering) and 1/sqrt(var + eps) of row r of x [R, H].
/// `rowSum`, when given, is the row's sum found by an earlier pass.
std::pair<Value, Value> normStats(Scalar s, Value x, Value r, int64_t h, double eps, bool centered,
                                  Value rowSum = Value()) {
  Type t = tensorOf(x).getElementType();
  Value mean;
  if (centered) {
    Value sum =
        rowSum ? rowSum
               : alongRow(s, h, s.c(computeType(t), 0.0), [&](Scalar q, Value j, ValueRange acc) {
                   return SmallVector<Value>{q.add(acc[0], q.at(x, {r, j}))};
                 })[0];
    mean = s.div(sum, s.c(computeType(t), h));
  }
  Value squares = alongRow(s, h, s.c(computeType(t), 0.0), [&](Scalar q, Value j, ValueRange acc) {
    Value d = q.at(x, {r, j});
    if (centered)
      d = q.sub(d, mean);
    return SmallVector<Value>{q.add(acc[0], q.mul(d, d))};
  })[0];
  Value var = s.div(squares, s.c(computeType(t), h));
  Value rstd = math::RsqrtOp::create(s.b, s.l, s.add(var, s.c(computeType(t), eps)));
  return {mean, rstd};
}

/// layer_norm (beta present) and rms_norm: y = (x - mean) * rstd * g (+ beta).
/// With a residual (mt.add_layer_norm), x = input + residual is written as
/// the first result while the row's sum is taken, then normalized from it.
Lowered lowerNorm(Value input, Value gamma, Value beta, double eps, LinalgBuilder &lb,
                  Value residual = Value()) {
  auto type = tensorOf(input);
  int64_t h = type.getShape().back(), rows = type.getNumElements() / h;
  Type t = type.getElementType();
  bool centered = static_cast<bool>(beta);
  Value x = lb.reshape(input, {rows, h});
  Value res = residual ? lb.reshape(residual, {rows, h}) : Value();
  SmallVector<Value> inits{lb.empty({rows, h}, t)};
  if (residual)
    inits.push_back(lb.empty({rows, h}, t));
  SmallVector<Value> results = overRows(
      lb, rows, inits,
      [&](Scalar s, Value r, ValueRange outs) {
        Value source = x, rowSum;
        SmallVector<Value> next(outs);
        if (residual) {
          SmallVector<Value> added = alongRow(
              s, h, {outs[1], s.c(computeType(t), 0.0)}, [&](Scalar q, Value j, ValueRange acc) {
                Value v = q.add(q.at(x, {r, j}), q.at(res, {r, j}));
                return SmallVector<Value>{q.put(v, acc[0], {r, j}), q.add(acc[1], v)};
              });
          source = next[1] = added[0];
          rowSum = added[1];
        }
        auto [mean, rstd] = normStats(s, source, r, h, eps, centered, rowSum);
        next[0] = alongRow(s, h, outs[0], [&](Scalar q, Value j, ValueRange acc) {
          Value v = q.at(source, {r, j});
          if (centered)
            v = q.sub(v, mean);
          Value scaled = q.mul(q.mul(v, rstd), q.at(gamma, {j}));
          if (centered)
            scaled = q.add(scaled, q.at(beta, {j}));
          return SmallVector<Value>{q.put(scaled, acc[0], {r, j})};
        })[0];
        return next;
      },
      /*independent=*/true);
  for (Value &v : results)
    v = lb.reshape(v, type.getShape());
  if (residual)
    std::swap(results[0], results[1]); // (sum, normalized)
  return results;
}

/// layer_norm_grad (centered) and rms_norm_grad: dx, dgamma (and dbeta).
/// The rows find their statistics and dx at once (each its own row) and
/// keep mean and rstd per row; dgamma and dbeta are then column sums over
/// the rows (sumRows), so no thread walks every row.
/// With `plus`, that gradient is added to dx as it is written.
Lowered lowerNormGrad(Value dyIn, Value xIn, Value gamma, double eps, bool centered,
                      LinalgBuilder &lb, Value plusIn = Value()) {
  auto type = tensorOf(xIn);
  int64_t h = type.getShape().back(), rows = type.getNumElements() / h;
  Type t = type.getElementType();
  Value x = lb.reshape(xIn, {rows, h}), dy = lb.reshape(dyIn, {rows, h});
  Value plus = plusIn ? lb.reshape(plusIn, {rows, h}) : Value();
  // dx, rstd and (centered) mean.
  SmallVector<Value> inits{lb.empty({rows, h}, t), lb.empty({rows}, computeType(t))};
  if (centered)
    inits.push_back(lb.empty({rows}, computeType(t)));
  SmallVector<Value> results = overRows(
      lb, rows, inits,
      [&](Scalar s, Value r, ValueRange outs) {
        auto [mean, rstd] = normStats(s, x, r, h, eps, centered);
        auto xhat = [&](Scalar q, Value j) {
          Value v = q.at(x, {r, j});
          return q.mul(centered ? q.sub(v, mean) : v, rstd);
        };
        auto dxhat = [&](Scalar q, Value j) { return q.mul(q.at(dy, {r, j}), q.at(gamma, {j})); };
        // sum(dxhat * xhat) and sum(dxhat).
        SmallVector<Value> sums =
            alongRow(s, h, {s.c(computeType(t), 0.0), s.c(computeType(t), 0.0)},
                     [&](Scalar q, Value j, ValueRange acc) {
                       Value xh = xhat(q, j), dxh = dxhat(q, j);
                       SmallVector<Value> next{q.add(acc[0], q.mul(dxh, xh)), acc[1]};
                       if (centered)
                         next[1] = q.add(acc[1], dxh);
                       return next;
                     });
        Value meanProd = s.div(sums[0], s.c(computeType(t), h)),
              meanDxhat = s.div(sums[1], s.c(computeType(t), h));
        Value dx = alongRow(s, h, outs[0], [&](Scalar q, Value j, ValueRange acc) {
          Value inner = q.sub(dxhat(q, j), q.mul(xhat(q, j), meanProd));
          if (centered)
            inner = q.sub(inner, meanDxhat);
          Value dx = q.mul(rstd, inner);
          if (plus)
            dx = q.add(q.at(plus, {r, j}), dx);
          return SmallVector<Value>{q.put(dx, acc[0], {r, j})};
        })[0];
        SmallVector<Value> next{dx, s.put(rstd, outs[1], {r})};
        if (centered)
          next.push_back(s.put(mean, outs[2], {r}));
        return next;
      },
      /*independent=*/true);
  using Read = LinalgBuilder::Read;
  Value rstd = results[1], mean = centered ? results[2] : Value();
  SmallVector<std::pair<Value, Read>> operands{
      {dy, Read::Cell}, {x, Read::Cell}, {rstd, Read::Row}};
  if (centered)
    operands.push_back({mean, Read::Row});
  Value dgamma = lb.sumRows(operands, rows, h, t, [&](OpBuilder &b, Location l, ValueRange a) {
    Scalar q{b, l};
    Value v = centered ? q.sub(a[1], a[3]) : a[1];
    return q.mul(a[0], q.mul(v, a[2]));
  });
  SmallVector<Value> lowered{lb.reshape(results[0], type.getShape()), dgamma};
  if (centered)
    lowered.push_back(lb.sumRows({{dy, Read::Cell}}, rows, h, t,
                                 [](OpBuilder &, Location, ValueRange a) { return a[0]; }));
  return lowered;
}

/// softmax(scale * x) over the last dimension, masked entries -inf.
Lowered lowerSoftmax(SoftmaxOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  unsigned rank = type.getRank();
  int64_t sk = type.getShape().back(), rows = type.getNumElements() / sk;
  int64_t sq = rank >= 2 ? type.getShape()[rank - 2] : 1;
  // The key mask is [batch, Sk]; a batch spans rows / batch rows.
  int64_t rowsPerBatch = rank >= 2 ? rows / type.getShape()[0] : rows;
  double scale = op.getScale().convertToDouble();
  bool causal = op.getMask() == MaskKind::causal;
  Type t = type.getElementType();
  Value x = lb.reshape(op.getInput(), {rows, sk}), keyMask = op.getKeyMask();
  // Query i stands Sk - Sq keys in, or at `position` of a KV cache (clamped:
  // past the last key, every key is seen anyway).
  Value offset = op.getPosition()
                     ? clampedIndexOf(lb.builder(), lb.location(), op.getPosition(), 0, sk)
                     : Value();
  auto z = [&](Scalar q, Value r, Value j) -> Value {
    Value scaled = q.mul(q.at(x, {r, j}), q.c(computeType(t), scale));
    Value keep;
    if (causal) {
      // query i sees keys j <= i + offset
      Value i = arith::RemUIOp::create(q.b, q.l, r, q.index(sq));
      Value limit = arith::AddIOp::create(q.b, q.l, i, offset ? offset : q.index(sk - sq));
      keep = arith::CmpIOp::create(q.b, q.l, arith::CmpIPredicate::sle, j, limit);
    }
    if (keyMask) {
      Value batch = arith::DivUIOp::create(q.b, q.l, r, q.index(rowsPerBatch));
      Value seen = q.at(keyMask, {batch, j});
      keep = keep ? arith::AndIOp::create(q.b, q.l, keep, seen).getResult() : seen;
    }
    return keep ? q.select(keep, scaled, q.c(computeType(t), negInfinity())) : scaled;
  };
  Value out = lb.empty({rows, sk}, t);
  Value p = overRows(
      lb, rows, out,
      [&](Scalar s, Value r, ValueRange outs) {
        Value max = alongRow(s, sk, s.c(computeType(t), negInfinity()),
                             [&](Scalar q, Value j, ValueRange acc) {
                               return SmallVector<Value>{q.max(z(q, r, j), acc[0])};
                             })[0];
        // e = exp(z - max) into the output, a row that is all -inf gets zeros.
        SmallVector<Value> expSum = alongRow(
            s, sk, {outs[0], s.c(computeType(t), 0.0)}, [&](Scalar q, Value j, ValueRange acc) {
              Value zj = z(q, r, j);
              Value e = q.select(q.eq(zj, q.c(computeType(t), negInfinity())),
                                 q.c(computeType(t), 0.0), q.exp(q.sub(zj, max)));
              return SmallVector<Value>{q.put(e, acc[0], {r, j}), q.add(acc[1], e)};
            });
        return alongRow(s, sk, expSum[0], [&](Scalar q, Value j, ValueRange acc) {
          Value e = q.at(acc[0], {r, j});
          return SmallVector<Value>{q.put(q.divOrZero(e, expSum[1]), acc[0], {r, j})};
        });
      },
      /*independent=*/true)[0];
  return SmallVector<Value>{lb.reshape(p, type.getShape())};
}

/// dx = scale * y * (dy - sum(dy * y)).
Lowered lowerSoftmaxGrad(SoftmaxGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getOutput());
  int64_t w = type.getShape().back(), rows = type.getNumElements() / w;
  Type t = type.getElementType();
  double scale = op.getScale().convertToDouble();
  Value dy = lb.reshape(op.getGrad(), {rows, w}), y = lb.reshape(op.getOutput(), {rows, w});
  Value dx = overRows(
      lb, rows, lb.empty({rows, w}, t),
      [&](Scalar s, Value r, ValueRange outs) {
        Value sum =
            alongRow(s, w, s.c(computeType(t), 0.0), [&](Scalar q, Value j, ValueRange acc) {
              return SmallVector<Value>{q.add(acc[0], q.mul(q.at(dy, {r, j}), q.at(y, {r, j})))};
            })[0];
        return alongRow(s, w, outs, [&](Scalar q, Value j, ValueRange acc) {
          Value d = q.mul(q.at(y, {r, j}), q.sub(q.at(dy, {r, j}), sum));
          return SmallVector<Value>{q.put(q.mul(d, q.c(computeType(t), scale)), acc[0], {r, j})};
        });
      },
      /*independent=*/true)[0];
  return SmallVector<Value>{lb.reshape(dx, type.getShape())};
}

/// y = x - max - log(sum(exp(x - max))) per row: the maximum, then the sum,
/// then the row written once.
Lowered lowerLogSoftmax(LogSoftmaxOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  int64_t w = type.getShape().back(), rows = type.getNumElements() / w;
  Type t = type.getElementType(), ct = computeType(t);
  Value x = lb.reshape(op.getInput(), {rows, w});
  Value y = overRows(
      lb, rows, lb.empty({rows, w}, t),
      [&](Scalar s, Value r, ValueRange outs) {
        Value max = alongRow(s, w, s.c(ct, negInfinity()), [&](Scalar q, Value j, ValueRange acc) {
          return SmallVector<Value>{q.max(q.at(x, {r, j}), acc[0])};
        })[0];
        Value sum = alongRow(s, w, s.c(ct, 0.0), [&](Scalar q, Value j, ValueRange acc) {
          return SmallVector<Value>{q.add(acc[0], q.exp(q.sub(q.at(x, {r, j}), max)))};
        })[0];
        Value shift = s.add(max, math::LogOp::create(s.b, s.l, sum));
        return alongRow(s, w, outs, [&](Scalar q, Value j, ValueRange acc) {
          return SmallVector<Value>{q.put(q.sub(q.at(x, {r, j}), shift), acc[0], {r, j})};
        });
      },
      /*independent=*/true)[0];
  return SmallVector<Value>{lb.reshape(y, type.getShape())};
}

/// dx = dy - exp(y) * sum(dy).
Lowered lowerLogSoftmaxGrad(LogSoftmaxGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getOutput());
  int64_t w = type.getShape().back(), rows = type.getNumElements() / w;
  Type t = type.getElementType(), ct = computeType(t);
  Value dy = lb.reshape(op.getGrad(), {rows, w}), y = lb.reshape(op.getOutput(), {rows, w});
  Value dx = overRows(
      lb, rows, lb.empty({rows, w}, t),
      [&](Scalar s, Value r, ValueRange outs) {
        Value sum = alongRow(s, w, s.c(ct, 0.0), [&](Scalar q, Value j, ValueRange acc) {
          return SmallVector<Value>{q.add(acc[0], q.at(dy, {r, j}))};
        })[0];
        return alongRow(s, w, outs, [&](Scalar q, Value j, ValueRange acc) {
          Value d = q.sub(q.at(dy, {r, j}), q.mul(q.exp(q.at(y, {r, j})), sum));
          return SmallVector<Value>{q.put(d, acc[0], {r, j})};
        });
      },
      /*independent=*/true)[0];
  return SmallVector<Value>{lb.reshape(dx, type.getShape())};
}

/// The pieces cross_entropy and its gradient share: logits [R, V] with
/// padded classes (>= num_classes) at -inf, labels [R], mask [R].
struct LossRows {
  int64_t rows, v, classes;
  Type t;
  Value logits, labels, mask;

  template <typename LossOp> LossRows(LossOp op, LinalgBuilder &lb) {
    auto type = tensorOf(op.getLogits());
    v = type.getShape().back();
    rows = type.getNumElements() / v;
    classes = op.getNumClassesAttr() ? op.getNumClassesAttr().getInt() : v;
    t = type.getElementType();
    logits = lb.reshape(op.getLogits(), {rows, v});
    labels = lb.reshape(op.getLabels(), {rows});
    if (op.getLossMask())
      mask = lb.reshape(op.getLossMask(), {rows});
  }

  Value z(Scalar q, Value r, Value j) const {
    Value valid = arith::CmpIOp::create(q.b, q.l, arith::CmpIPredicate::slt, j, q.index(classes));
    return q.select(valid, q.at(logits, {r, j}), q.c(computeType(t), negInfinity()));
  }
  Value weight(Scalar q, Value r) const {
    return mask ? q.cast(q.at(mask, {r}), computeType(t)) : q.c(computeType(t), 1.0);
  }
  Value label(Scalar q, Value r) const {
    return arith::IndexCastOp::create(q.b, q.l, q.b.getIndexType(), q.at(labels, {r}));
  }
  Value rowMax(Scalar s, Value r) const {
    return alongRow(s, v, s.c(computeType(t), negInfinity()),
                    [&](Scalar q, Value j, ValueRange acc) {
                      return SmallVector<Value>{q.max(z(q, r, j), acc[0])};
                    })[0];
  }
  /// Row r's weighted loss, logsumexp(z) - z[label], from its maximum and
  /// its sum of exponentials less the maximum.
  Value rowLoss(Scalar s, Value r, Value max, Value sumExp) const {
    Value picked = s.at(logits, {r, label(s, r)});
    Value lse = s.add(max, mlir::math::LogOp::create(s.b, s.l, sumExp));
    return s.mul(s.sub(lse, picked), weight(s, r));
  }
};

/// The unmasked rows' weights (the mask, or ones) and their sum: the mean's
/// divisor.
Value lossCount(const LossRows &in, LinalgBuilder &lb) {
  if (!in.mask)
    return lb.filled({}, computeType(in.t), static_cast<double>(in.rows));
  Value weights = in.mask;
  Type ct = computeType(in.t);
  if (tensorOf(weights).getElementType() != ct)
    weights = lb.map(weights, lb.empty({in.rows}, ct), [&](OpBuilder &b, Location l, ValueRange a) {
      return Scalar{b, l}.cast(a[0], ct);
    });
  return lb.sumAll(weights);
}

/// total / count as a 0-d tensor of `type` (count 0, all rows masked: 0).
Value meanOfRows(Value total, Value count, Type type, LinalgBuilder &lb) {
  Scalar s{lb.builder(), lb.location()};
  Value mean = s.cast(s.div(s.at(total, {}), s.nonZero(s.at(count, {}))), type);
  return tensor::FromElementsOp::create(lb.builder(), lb.location(),
                                        RankedTensorType::get({}, type), mean);
}

/// mean over unmasked rows of logsumexp(z) - z[label]; 0 when all are masked.
/// Each row's loss is found on its own (rows in parallel), then summed.
Lowered lowerCrossEntropy(CrossEntropyOp op, LinalgBuilder &lb) {
  LossRows in(op, lb);
  Type t = in.t;
  // Each row's loss in fp32 (for 16-bit logits too): they are summed next.
  Value perRow = overRows(
      lb, in.rows, lb.empty({in.rows}, computeType(t)),
      [&](Scalar s, Value r, ValueRange outs) {
        Value max = in.rowMax(s, r);
        Value sumExp =
            alongRow(s, in.v, s.c(computeType(t), 0.0), [&](Scalar q, Value j, ValueRange a) {
              return SmallVector<Value>{q.add(a[0], q.exp(q.sub(in.z(q, r, j), max)))};
            })[0];
        return SmallVector<Value>{s.put(in.rowLoss(s, r, max, sumExp), outs[0], {r})};
      },
      /*independent=*/true)[0];
  Value total = lb.sumAll(perRow), count = lossCount(in, lb);
  return SmallVector<Value>{
      meanOfRows(total, count, tensorOf(op.getResult()).getElementType(), lb)};
}

/// The unmasked rows' share whose label logit reaches the row maximum.
template <typename Hit>
Value meanOfHits(LossRows &in, LinalgBuilder &lb, Type resultType, Hit hit) {
  Value perRow = overRows(
      lb, in.rows, lb.empty({in.rows}, computeType(in.t)),
      [&](Scalar s, Value r, ValueRange outs) {
        Value one = s.select(hit(s, r), s.c(computeType(in.t), 1.0), s.c(computeType(in.t), 0.0));
        return SmallVector<Value>{s.put(s.mul(one, in.weight(s, r)), outs[0], {r})};
      },
      /*independent=*/true)[0];
  Value total = lb.sumAll(perRow), count = lossCount(in, lb);
  return meanOfRows(total, count, resultType, lb);
}

/// mean over unmasked rows of [logits[label] >= max(logits)].
Lowered lowerAccuracy(AccuracyOp op, LinalgBuilder &lb) {
  LossRows in(op, lb);
  Type resultType = tensorOf(op.getResult()).getElementType();
  return SmallVector<Value>{meanOfHits(in, lb, resultType, [&](Scalar s, Value r) {
    Value picked = s.cast(s.at(in.logits, {r, in.label(s, r)}), computeType(in.t));
    return arith::CmpFOp::create(s.b, s.l, arith::CmpFPredicate::OGE, picked, in.rowMax(s, r))
        .getResult();
  })};
}

/// A row's exponentials of the logits less their maximum (0 for a padded
/// class) and their sum, which the gradient and the fused loss share.
struct RowExponentials {
  const LossRows &in;
  Value r, max, sum;

  RowExponentials(const LossRows &in, Scalar s, Value r) : in(in), r(r) {
    max = in.rowMax(s, r);
    Type ct = computeType(in.t);
    sum = alongRow(s, in.v, s.c(ct, 0.0), [&](Scalar q, Value j, ValueRange acc) {
      return SmallVector<Value>{q.add(acc[0], at(q, j))};
    })[0];
  }
  Value at(Scalar q, Value j) const {
    Type ct = computeType(in.t);
    Value zj = in.z(q, r, j);
    return q.select(q.eq(zj, q.c(ct, negInfinity())), q.c(ct, 0.0), q.exp(q.sub(zj, max)));
  }
  /// Writes the row of (softmax - onehot(label)) * w into `dx`.
  Value writeGradient(Scalar s, Value w, Value dx) const {
    Type ct = computeType(in.t);
    Value label = in.label(s, r);
    return alongRow(s, in.v, dx, [&](Scalar q, Value j, ValueRange acc) {
      Value hit = arith::CmpIOp::create(q.b, q.l, arith::CmpIPredicate::eq, j, label);
      Value onehot = q.select(hit, q.c(ct, 1.0), q.c(ct, 0.0));
      Value g = q.mul(q.sub(q.divOrZero(at(q, j), sum), onehot), w);
      return SmallVector<Value>{q.put(g, acc[0], {r, j})};
    })[0];
  }
};

/// dlogits = (softmax(z) - onehot(label)) * mask * dloss / count.
Lowered lowerCrossEntropyGrad(CrossEntropyGradOp op, LinalgBuilder &lb) {
  LossRows in(op, lb);
  Scalar top{lb.builder(), lb.location()};
  Value denom = top.nonZero(top.at(lossCount(in, lb), {}));
  Value dloss = top.cast(top.at(op.getGrad(), {}), computeType(in.t));
  Value dx = overRows(
      lb, in.rows, lb.empty({in.rows, in.v}, in.t),
      [&](Scalar s, Value r, ValueRange outs) {
        RowExponentials e(in, s, r);
        Value w = s.div(s.mul(in.weight(s, r), dloss), denom);
        return SmallVector<Value>{e.writeGradient(s, w, outs[0])};
      },
      /*independent=*/true)[0];
  return SmallVector<Value>{lb.reshape(dx, tensorOf(op.getLogits()).getShape())};
}

/// mt.cross_entropy and mt.cross_entropy_grad in one pass per row: each
/// row's maximum and sum of exponentials serve its loss and its gradient.
Lowered lowerFusedCrossEntropy(FusedCrossEntropyOp op, LinalgBuilder &lb) {
  LossRows in(op, lb);
  Type ct = computeType(in.t);
  auto gradType = tensorOf(op.getLogitsGrad());
  Scalar top{lb.builder(), lb.location()};
  Value count = lossCount(in, lb);
  Value denom = top.nonZero(top.at(count, {}));
  Value dloss = top.cast(top.at(op.getGrad(), {}), ct);
  SmallVector<Value> rows = overRows(
      lb, in.rows,
      {lb.empty({in.rows}, ct), lb.empty({in.rows, in.v}, gradType.getElementType())},
      [&](Scalar s, Value r, ValueRange outs) {
        RowExponentials e(in, s, r);
        Value w = s.div(s.mul(in.weight(s, r), dloss), denom);
        Value dx = e.writeGradient(s, w, outs[1]);
        Value loss = s.put(in.rowLoss(s, r, e.max, e.sum), outs[0], {r});
        return SmallVector<Value>{loss, dx};
      },
      /*independent=*/true);
  Value total = lb.sumAll(rows[0]);
  Value loss = meanOfRows(total, count, tensorOf(op.getLoss()).getElementType(), lb);
  return SmallVector<Value>{loss, lb.reshape(rows[1], gradType.getShape())};
}

} // namespace

void populateRowLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<LayerNormOp>(patterns, [](LayerNormOp n, LinalgBuilder &lb) {
    return lowerNorm(n.getInput(), n.getGamma(), n.getBeta(), n.getEpsilon().convertToDouble(), lb);
  });
  addLowering<RmsNormOp>(patterns, [](RmsNormOp n, LinalgBuilder &lb) {
    return lowerNorm(n.getInput(), n.getGamma(), Value(), n.getEpsilon().convertToDouble(), lb);
  });
  addLowering<AddLayerNormOp>(patterns, [](AddLayerNormOp n, LinalgBuilder &lb) {
    return lowerNorm(n.getInput(), n.getGamma(), n.getBeta(), n.getEpsilon().convertToDouble(), lb,
                     n.getResidual());
  });
  addLowering<LayerNormGradOp>(patterns, [](LayerNormGradOp n, LinalgBuilder &lb) {
    return lowerNormGrad(n.getGrad(), n.getInput(), n.getGamma(), n.getEpsilon().convertToDouble(),
                         /*centered=*/true, lb, n.getResidualGrad());
  });
  addLowering<RmsNormGradOp>(patterns, [](RmsNormGradOp n, LinalgBuilder &lb) {
    return lowerNormGrad(n.getGrad(), n.getInput(), n.getGamma(), n.getEpsilon().convertToDouble(),
                         /*centered=*/false, lb);
  });
  addLowering<SoftmaxOp>(patterns, lowerSoftmax);
  addLowering<SoftmaxGradOp>(patterns, lowerSoftmaxGrad);
  addLowering<LogSoftmaxOp>(patterns, lowerLogSoftmax);
  addLowering<LogSoftmaxGradOp>(patterns, lowerLogSoftmaxGrad);
  addLowering<CrossEntropyOp>(patterns, lowerCrossEntropy);
  addLowering<CrossEntropyGradOp>(patterns, lowerCrossEntropyGrad);
  addLowering<FusedCrossEntropyOp>(patterns, lowerFusedCrossEntropy);
  addLowering<AccuracyOp>(patterns, lowerAccuracy);
}

} // namespace mt
