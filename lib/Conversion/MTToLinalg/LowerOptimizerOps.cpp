//===- LowerOptimizerOps.cpp - optimizer updates ---------------------------===//
#include "Lowerings.h"

using namespace mlir;

namespace mt {
namespace {

/// One elementwise pass over parameter, gradient and both moments, writing
/// the three new tensors.
Lowered lowerAdamW(AdamWOp op, LinalgBuilder &lb) {
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  auto type = tensorOf(op.getParam());
  Type t = type.getElementType();
  unsigned rank = type.getRank();
  // The eight scalars, converted to the parameter's type once.
  SmallVector<Value> h;
  for (int64_t i = 0; i < 8; ++i) {
    Value s = b.create<tensor::ExtractOp>(loc, op.getHyper(), ValueRange{lb.index(i)});
    if (t != s.getType())
      s = t.getIntOrFloatBitWidth() > 32 ? b.create<arith::ExtFOp>(loc, t, s).getResult()
                                         : b.create<arith::TruncFOp>(loc, t, s).getResult();
    h.push_back(s);
  }
  Value lr = h[0], b1 = h[1], b2 = h[2], eps = h[3], wd = h[4], bc1 = h[5], bc2 = h[6],
        scale = h[7];
  bool decay = op.getDecay();
  SmallVector<Value> inits(3, Value());
  for (Value &init : inits)
    init = lb.empty(type.getShape(), t);
  SmallVector<AffineMap> maps(7, lb.identity(rank));
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{type, type, type},
      ValueRange{op.getParam(), op.getGrad(), op.getExpAvg(), op.getExpAvgSq()}, inits, maps,
      lb.parallel(rank), [&](OpBuilder &nb, Location l, ValueRange a) {
        auto one = nb.create<arith::ConstantOp>(l, nb.getFloatAttr(t, 1.0));
        Value g = nb.create<arith::MulFOp>(l, a[1], scale);
        Value m = nb.create<arith::AddFOp>(
            l, nb.create<arith::MulFOp>(l, b1, a[2]),
            nb.create<arith::MulFOp>(l, nb.create<arith::SubFOp>(l, one, b1), g));
        Value v = nb.create<arith::AddFOp>(
            l, nb.create<arith::MulFOp>(l, b2, a[3]),
            nb.create<arith::MulFOp>(l, nb.create<arith::SubFOp>(l, one, b2),
                                     nb.create<arith::MulFOp>(l, g, g)));
        Value p = a[0];
        if (decay)
          p = nb.create<arith::MulFOp>(
              l, p, nb.create<arith::SubFOp>(l, one, nb.create<arith::MulFOp>(l, lr, wd)));
        Value mHat = nb.create<arith::DivFOp>(l, m, bc1);
        Value denom = nb.create<arith::AddFOp>(
            l, nb.create<math::SqrtOp>(l, nb.create<arith::DivFOp>(l, v, bc2)), eps);
        Value step = nb.create<arith::MulFOp>(l, lr, nb.create<arith::DivFOp>(l, mHat, denom));
        nb.create<linalg::YieldOp>(l, ValueRange{nb.create<arith::SubFOp>(l, p, step), m, v});
      });
  return SmallVector<Value>(generic.getResults());
}

} // namespace

std::optional<Lowered> lowerOptimizerOp(Operation *op, LinalgBuilder &lb) {
  if (auto a = dyn_cast<AdamWOp>(op))
    return lowerAdamW(a, lb);
  return std::nullopt;
}

} // namespace mt
