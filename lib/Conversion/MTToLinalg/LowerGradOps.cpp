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

/// Scatter-add of gradient rows into the table. Each column is its own
/// loop over the rows in order (marked independent: a parallel target runs
/// the columns at once, neighbouring threads on neighbouring elements), so
/// repeated ids add in the same order everywhere, with no atomics.
Lowered lowerEmbeddingGrad(EmbeddingGradOp op, LinalgBuilder &lb) {
  auto table = tensorOf(op.getResult());
  int64_t vocab = table.getDimSize(0), h = table.getDimSize(1);
  int64_t rows = tensorOf(op.getIds()).getNumElements();
  Value grad = lb.reshape(op.getGrad(), {rows, h}), ids = lb.reshape(op.getIds(), {rows});
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value init = op.getPlus() ? op.getPlus()
                            : lb.filled(table.getShape(), table.getElementType(), 0.0);
  Value zero = lb.index(0);
  // A vocabulary shard holds rows [offset, offset + vocab); other ids add 0.
  Value offset = zero;
  if (op.getShard()) {
    Value i = scalarOf(b, loc, op.getShard());
    i = b.create<arith::MulIOp>(loc, i, b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(vocab)));
    offset = b.create<arith::IndexCastOp>(loc, b.getIndexType(), i);
  }
  Type t = table.getElementType();
  Value result = forEachRow(b, loc, h, ValueRange{init}, [&](OpBuilder &cb, Location cl, Value c,
                                                              ValueRange column) {
    return forRange(cb, cl, rows, column, [&](OpBuilder &ob, Location ol, Value r, ValueRange acc) {
      Value id = ob.create<arith::IndexCastOp>(ol, ob.getIndexType(),
                                               ob.create<tensor::ExtractOp>(ol, ids, ValueRange{r}));
      id = ob.create<arith::SubIOp>(ol, id, offset);
      Value last = ob.create<arith::ConstantIndexOp>(ol, vocab - 1);
      Value inside = ob.create<arith::AndIOp>(
          ol, ob.create<arith::CmpIOp>(ol, arith::CmpIPredicate::sge, id, zero),
          ob.create<arith::CmpIOp>(ol, arith::CmpIPredicate::sle, id, last));
      id = ob.create<arith::MinSIOp>(ol, ob.create<arith::MaxSIOp>(ol, id, zero), last);
      Value cur = ob.create<tensor::ExtractOp>(ol, acc[0], ValueRange{id, c});
      Value g = ob.create<tensor::ExtractOp>(ol, grad, ValueRange{r, c});
      if (op.getShard()) {
        Value scale = ob.create<arith::SelectOp>(ol, inside, cst(ob, ol, t, 1.0), cst(ob, ol, t, 0.0));
        g = mulF(ob, ol, g, scale);
      }
      Value upd = ob.create<tensor::InsertOp>(ol, addF(ob, ol, cur, g), acc[0], ValueRange{id, c});
      return SmallVector<Value>{upd};
    });
  })[0];
  return SmallVector<Value>{result};
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
  if (auto k = dyn_cast<AttentionKVGradOp>(op))
    return lowerAttentionKVGrad(k, lb);
  if (auto a = dyn_cast<AccumulateOp>(op)) {
    // Destination-passing: the accumulator is the output, so bufferization
    // adds in place when nothing reads the old value afterwards.
    unsigned rank = tensorOf(a.getInto()).getRank();
    return Lowered(SmallVector<Value>{lb.generic(
        a.getValue(), lb.identity(rank), a.getInto(), lb.identity(rank), lb.parallel(rank),
        [](OpBuilder &b, Location l, ValueRange v) { return addF(b, l, v[1], v[0]); })});
  }
  return std::nullopt;
}

} // namespace mt
