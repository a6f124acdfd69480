//===- LowerGradOps.cpp - backward ops -------------------------------------===//
#include "Lowerings.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace mt {
namespace {

using Iter = utils::IteratorType;

Value cst(OpBuilder &b, Location l, Type t, double v) {
  return b.create<arith::ConstantOp>(l, b.getFloatAttr(t, v));
}
Value addF(OpBuilder &b, Location l, Value x, Value y) { return b.create<arith::AddFOp>(l, x, y); }
Value mulF(OpBuilder &b, Location l, Value x, Value y) { return b.create<arith::MulFOp>(l, x, y); }
Value subF(OpBuilder &b, Location l, Value x, Value y) { return b.create<arith::SubFOp>(l, x, y); }

/// Scatter-add of gradient rows into the table, one row at a time.
Lowered lowerEmbeddingGrad(EmbeddingGradOp op, LinalgBuilder &lb) {
  auto table = tensorOf(op.getResult());
  int64_t vocab = table.getDimSize(0), h = table.getDimSize(1);
  int64_t rows = tensorOf(op.getIds()).getNumElements();
  Value grad = lb.reshape(op.getGrad(), {rows, h}), ids = lb.reshape(op.getIds(), {rows});
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value init = lb.filled(table.getShape(), table.getElementType(), 0.0);
  Value zero = lb.index(0), one = lb.index(1);
  // A vocabulary shard holds rows [offset, offset + vocab); other ids add 0.
  Value offset = zero;
  if (op.getShard()) {
    Value i = b.create<tensor::ExtractOp>(loc, op.getShard(), ValueRange{});
    i = b.create<arith::MulIOp>(loc, i, b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(vocab)));
    offset = b.create<arith::IndexCastOp>(loc, b.getIndexType(), i);
  }
  Type t = table.getElementType();
  auto outer = b.create<scf::ForOp>(
      loc, zero, lb.index(rows), one, ValueRange{init},
      [&](OpBuilder &ob, Location ol, Value r, ValueRange acc) {
        Value id = ob.create<arith::IndexCastOp>(ol, ob.getIndexType(),
                                                 ob.create<tensor::ExtractOp>(ol, ids, ValueRange{r}));
        id = ob.create<arith::SubIOp>(ol, id, offset);
        Value last = ob.create<arith::ConstantIndexOp>(ol, vocab - 1);
        Value inside = ob.create<arith::AndIOp>(
            ol, ob.create<arith::CmpIOp>(ol, arith::CmpIPredicate::sge, id, zero),
            ob.create<arith::CmpIOp>(ol, arith::CmpIPredicate::sle, id, last));
        Value scale = ob.create<arith::SelectOp>(ol, inside, cst(ob, ol, t, 1.0), cst(ob, ol, t, 0.0));
        id = ob.create<arith::MinSIOp>(ol, ob.create<arith::MaxSIOp>(ol, id, zero), last);
        auto inner = ob.create<scf::ForOp>(
            ol, zero, ob.create<arith::ConstantIndexOp>(ol, h), one, acc,
            [&](OpBuilder &ib, Location il, Value c, ValueRange acc2) {
              Value cur = ib.create<tensor::ExtractOp>(il, acc2[0], ValueRange{id, c});
              Value g = ib.create<tensor::ExtractOp>(il, grad, ValueRange{r, c});
              if (op.getShard())
                g = mulF(ib, il, g, scale);
              Value upd = ib.create<tensor::InsertOp>(il, addF(ib, il, cur, g), acc2[0], ValueRange{id, c});
              ib.create<scf::YieldOp>(il, upd);
            });
        ob.create<scf::YieldOp>(ol, inner.getResults());
      });
  return SmallVector<Value>{outer.getResult(0)};
}

/// Sums a [R, H] tensor over rows.
Value sumRows(LinalgBuilder &lb, Value x) {
  auto t = tensorOf(x);
  MLIRContext *ctx = lb.builder().getContext();
  return lb.generic(x, lb.identity(2), lb.filled({t.getDimSize(1)}, t.getElementType(), 0.0),
                    AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx),
                    {Iter::reduction, Iter::parallel},
                    [](OpBuilder &b, Location l, ValueRange a) { return addF(b, l, a[1], a[0]); });
}

/// Per-row mean of a [R, H] tensor.
Value meanLast(LinalgBuilder &lb, Value x) {
  auto t = tensorOf(x);
  double h = t.getDimSize(1);
  Value sum = lb.reduceLast(x, 0.0, [](OpBuilder &b, Location l, ValueRange a) { return addF(b, l, a[1], a[0]); });
  return lb.map(sum, sum, [&](OpBuilder &b, Location l, ValueRange a) {
    return b.create<arith::DivFOp>(l, a[0], cst(b, l, t.getElementType(), h)).getResult();
  });
}

/// layer_norm_grad (beta present) and rms_norm_grad.
Lowered lowerNormGrad(Value dyIn, Value xIn, Value gamma, double eps, bool centered,
                      LinalgBuilder &lb) {
  auto type = tensorOf(xIn);
  int64_t h = type.getShape().back(), rows = type.getNumElements() / h;
  Type t = type.getElementType();
  Value x = lb.reshape(xIn, {rows, h}), dy = lb.reshape(dyIn, {rows, h});
  auto [mean, rstd] = rowStats(lb, x, eps, centered);
  AffineMap id = lb.identity(2), row = lb.dropLastMap(2), col = lb.suffixMap(2, 1);
  SmallVector<Value> ins{x, rstd};
  SmallVector<AffineMap> maps{id, row};
  if (centered) {
    ins.push_back(mean);
    maps.push_back(row);
  }
  Value xhat = lb.generic(ins, maps, lb.empty({rows, h}, t), id, lb.parallel(2),
                          [&](OpBuilder &b, Location l, ValueRange a) {
                            Value c = centered ? subF(b, l, a[0], a[2]) : a[0];
                            return mulF(b, l, c, a[1]);
                          });
  Value dxhat = lb.generic({dy, gamma}, {id, col}, lb.empty({rows, h}, t), id, lb.parallel(2),
                           [](OpBuilder &b, Location l, ValueRange a) { return mulF(b, l, a[0], a[1]); });
  Value prod = lb.map({dxhat, xhat}, x, [](OpBuilder &b, Location l, ValueRange a) { return mulF(b, l, a[0], a[1]); });
  Value meanProd = meanLast(lb, prod);
  SmallVector<Value> dxIns{dxhat, xhat, rstd, meanProd};
  SmallVector<AffineMap> dxMaps{id, id, row, row};
  if (centered) {
    dxIns.push_back(meanLast(lb, dxhat));
    dxMaps.push_back(row);
  }
  Value dx = lb.generic(dxIns, dxMaps, lb.empty({rows, h}, t), id, lb.parallel(2),
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value inner = subF(b, l, a[0], mulF(b, l, a[1], a[3]));
                          if (centered)
                            inner = subF(b, l, inner, a[4]);
                          return mulF(b, l, a[2], inner);
                        });
  Value dyXhat = lb.map({dy, xhat}, x, [](OpBuilder &b, Location l, ValueRange a) { return mulF(b, l, a[0], a[1]); });
  SmallVector<Value> results{lb.reshape(dx, type.getShape()), sumRows(lb, dyXhat)};
  if (centered)
    results.push_back(sumRows(lb, dy));
  return results;
}

Value geluDerivative(OpBuilder &b, Location l, Value x, bool tanhApprox) {
  Type t = x.getType();
  auto c = [&](double v) { return cst(b, l, t, v); };
  if (tanhApprox) {
    double k = std::sqrt(2.0 / M_PI);
    Value x2 = mulF(b, l, x, x);
    Value u = mulF(b, l, c(k), addF(b, l, x, mulF(b, l, c(0.044715), mulF(b, l, x2, x))));
    Value th = b.create<math::TanhOp>(l, u);
    Value left = mulF(b, l, c(0.5), addF(b, l, c(1.0), th));
    Value sech2 = subF(b, l, c(1.0), mulF(b, l, th, th));
    Value du = mulF(b, l, c(k), addF(b, l, c(1.0), mulF(b, l, c(3 * 0.044715), x2)));
    return addF(b, l, left, mulF(b, l, mulF(b, l, c(0.5), x), mulF(b, l, sech2, du)));
  }
  Value cdf = mulF(b, l, c(0.5), addF(b, l, c(1.0), b.create<math::ErfOp>(l, mulF(b, l, x, c(M_SQRT1_2)))));
  Value pdf = mulF(b, l, c(1.0 / std::sqrt(2.0 * M_PI)),
                   b.create<math::ExpOp>(l, mulF(b, l, c(-0.5), mulF(b, l, x, x))));
  return addF(b, l, cdf, mulF(b, l, x, pdf));
}

Lowered lowerSoftmaxGrad(SoftmaxGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getOutput());
  unsigned rank = type.getRank();
  double scale = op.getScale().convertToDouble();
  Value prod = lb.map({op.getGrad(), op.getOutput()}, op.getOutput(),
                      [](OpBuilder &b, Location l, ValueRange a) { return mulF(b, l, a[0], a[1]); });
  Value sum = lb.reduceLast(prod, 0.0, [](OpBuilder &b, Location l, ValueRange a) { return addF(b, l, a[1], a[0]); });
  Value dx = lb.generic({op.getGrad(), op.getOutput(), sum},
                        {lb.identity(rank), lb.identity(rank), lb.dropLastMap(rank)},
                        lb.empty(type.getShape(), type.getElementType()), lb.identity(rank),
                        lb.parallel(rank), [&](OpBuilder &b, Location l, ValueRange a) {
                          Value d = mulF(b, l, a[1], subF(b, l, a[0], a[2]));
                          return mulF(b, l, d, cst(b, l, a[0].getType(), scale));
                        });
  return SmallVector<Value>{dx};
}

Lowered lowerAttentionKVGrad(AttentionKVGradOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  auto lt = tensorOf(op.getLhs()), rt = tensorOf(op.getRhs());
  int64_t kvHeads = out.getDimSize(1), group = lt.getDimSize(1) / kvHeads;
  // Query heads h = kh * group + g: view them as [kh, g] so every loop is a
  // plain dimension (linalg needs invertible maps).
  Value lhs = lb.reshape(op.getLhs(), {lt.getDimSize(0), kvHeads, group, lt.getDimSize(2),
                                       lt.getDimSize(3)});
  Value rhs = lb.reshape(op.getRhs(), {rt.getDimSize(0), kvHeads, group, rt.getDimSize(2),
                                       rt.getDimSize(3)});
  MLIRContext *ctx = lb.builder().getContext();
  AffineExpr b = getAffineDimExpr(0, ctx), kh = getAffineDimExpr(1, ctx),
             j = getAffineDimExpr(2, ctx), d = getAffineDimExpr(3, ctx),
             g = getAffineDimExpr(4, ctx), i = getAffineDimExpr(5, ctx);
  return SmallVector<Value>{lb.contract(
      lhs, AffineMap::get(6, 0, {b, kh, g, i, j}, ctx), rhs,
      AffineMap::get(6, 0, {b, kh, g, i, d}, ctx), out.getShape(),
      AffineMap::get(6, 0, {b, kh, j, d}, ctx), {false, false, false, false, true, true})};
}

Lowered lowerCrossEntropyGrad(CrossEntropyGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getLogits());
  int64_t v = type.getShape().back(), rows = type.getNumElements() / v;
  int64_t classes = op.getNumClassesAttr() ? op.getNumClassesAttr().getInt() : v;
  Type t = type.getElementType();
  Value logits = lb.reshape(op.getLogits(), {rows, v});
  Value labels = lb.reshape(op.getLabels(), {rows});
  Value mask = op.getLossMask() ? lb.reshape(op.getLossMask(), {rows}) : lb.filled({rows}, t, 1.0);
  Value z = lb.map(logits, logits, [&](OpBuilder &b, Location l, ValueRange a) {
    Value c = b.create<linalg::IndexOp>(l, 1);
    Value valid = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, c,
                                          b.create<arith::ConstantIndexOp>(l, classes));
    return b.create<arith::SelectOp>(l, valid, a[0], cst(b, l, t, negInf())).getResult();
  });
  Value p = softmaxLast(lb, z);
  Value count = lb.sumAll(mask);
  MLIRContext *ctx = lb.builder().getContext();
  AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
  Value dx = lb.generic(
      {p, labels, mask, count, op.getGrad()},
      {lb.identity(2), lb.dropLastMap(2), lb.dropLastMap(2), scalar, scalar},
      lb.empty({rows, v}, t), lb.identity(2), lb.parallel(2),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value c = b.create<arith::IndexCastOp>(l, b.getI64Type(), b.create<linalg::IndexOp>(l, 1));
        Value label = a[1].getType().isInteger(64)
                          ? a[1]
                          : b.create<arith::ExtSIOp>(l, b.getI64Type(), a[1]).getResult();
        Value hit = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, c, label);
        Value onehot = b.create<arith::SelectOp>(l, hit, cst(b, l, t, 1.0), cst(b, l, t, 0.0));
        Value empty = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, a[3], cst(b, l, t, 0.0));
        Value denom = b.create<arith::SelectOp>(l, empty, cst(b, l, t, 1.0), a[3]);
        Value dloss = a[4];
        if (dloss.getType() != t)
          dloss = t.getIntOrFloatBitWidth() > 32 ? b.create<arith::ExtFOp>(l, t, dloss).getResult()
                                                 : b.create<arith::TruncFOp>(l, t, dloss).getResult();
        Value weight = b.create<arith::DivFOp>(l, mulF(b, l, a[2], dloss), denom);
        return mulF(b, l, subF(b, l, a[0], onehot), weight);
      });
  return SmallVector<Value>{lb.reshape(dx, type.getShape())};
}

} // namespace

std::optional<Lowered> lowerGradOp(Operation *op, LinalgBuilder &lb) {
  if (auto e = dyn_cast<EmbeddingGradOp>(op))
    return lowerEmbeddingGrad(e, lb);
  if (auto p = dyn_cast<PositionEmbeddingGradOp>(op)) {
    auto table = tensorOf(p.getResult());
    Value zeros = lb.filled(table.getShape(), table.getElementType(), 0.0);
    return Lowered(SmallVector<Value>{insertSlice(lb, p.getGrad(), zeros, {0, 0},
                                                  tensorOf(p.getGrad()).getShape())});
  }
  if (auto n = dyn_cast<LayerNormGradOp>(op))
    return lowerNormGrad(n.getGrad(), n.getInput(), n.getGamma(), n.getEpsilon().convertToDouble(), true, lb);
  if (auto n = dyn_cast<RmsNormGradOp>(op))
    return lowerNormGrad(n.getGrad(), n.getInput(), n.getGamma(), n.getEpsilon().convertToDouble(), false, lb);
  if (auto g = dyn_cast<GeluGradOp>(op)) {
    bool approx = g.getApproximate() == GeluApproximation::tanh;
    return Lowered(SmallVector<Value>{lb.map({g.getGrad(), g.getInput()}, g.getInput(),
                                             [&](OpBuilder &b, Location l, ValueRange a) {
                                               return mulF(b, l, a[0], geluDerivative(b, l, a[1], approx));
                                             })});
  }
  if (auto g = dyn_cast<BiasGeluGradOp>(op)) {
    bool approx = g.getApproximate() == GeluApproximation::tanh;
    auto type = tensorOf(g.getInput());
    unsigned rank = type.getRank();
    return Lowered(SmallVector<Value>{lb.generic(
        {g.getGrad(), g.getInput(), g.getBias()},
        {lb.identity(rank), lb.identity(rank), lb.suffixMap(rank, 1)},
        lb.empty(type.getShape(), type.getElementType()), lb.identity(rank), lb.parallel(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          return mulF(b, l, a[0], geluDerivative(b, l, addF(b, l, a[1], a[2]), approx));
        })});
  }
  if (auto s = dyn_cast<SoftmaxGradOp>(op))
    return lowerSoftmaxGrad(s, lb);
  if (auto k = dyn_cast<AttentionKVGradOp>(op))
    return lowerAttentionKVGrad(k, lb);
  if (auto c = dyn_cast<CrossEntropyGradOp>(op))
    return lowerCrossEntropyGrad(c, lb);
  return std::nullopt;
}

} // namespace mt
