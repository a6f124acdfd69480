//===- LowerOptimizerOps.cpp - optimizer updates ---------------------------===//
#include "Lowerings.h"

#include "mt/Runtime/Abi.h"

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
  // The hyper-parameter slots (mt/Runtime/Abi.h), converted to the
  // parameter's type once.
  SmallVector<Value> h;
  for (int64_t i = 0; i < MT_ABI_HYPER_COUNT; ++i) {
    Value s = tensor::ExtractOp::create(b, loc, op.getHyper(), ValueRange{lb.index(i)});
    if (t != s.getType())
      s = t.getIntOrFloatBitWidth() > 32 ? arith::ExtFOp::create(b, loc, t, s).getResult()
                                         : arith::TruncFOp::create(b, loc, t, s).getResult();
    h.push_back(s);
  }
  Value lr = h[MT_ABI_HYPER_LR], b1 = h[MT_ABI_HYPER_BETA1], b2 = h[MT_ABI_HYPER_BETA2],
        eps = h[MT_ABI_HYPER_EPS], wd = h[MT_ABI_HYPER_WEIGHT_DECAY],
        bc1 = h[MT_ABI_HYPER_BIAS_CORRECTION1], bc2 = h[MT_ABI_HYPER_BIAS_CORRECTION2],
        scale = h[MT_ABI_HYPER_GRAD_SCALE];
  bool decay = op.getDecay();
  SmallVector<Value> inits(3, Value());
  for (Value &init : inits)
    init = lb.empty(type.getShape(), t);
  SmallVector<AffineMap> maps(7, lb.identity(rank));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type, type, type},
      ValueRange{op.getParam(), op.getGrad(), op.getExpAvg(), op.getExpAvgSq()}, inits, maps,
      lb.parallel(rank), [&](OpBuilder &nb, Location l, ValueRange a) {
        auto one = arith::ConstantOp::create(nb, l, nb.getFloatAttr(t, 1.0));
        Value g = arith::MulFOp::create(nb, l, a[1], scale);
        Value m = arith::AddFOp::create(
            nb, l, arith::MulFOp::create(nb, l, b1, a[2]),
            arith::MulFOp::create(nb, l, arith::SubFOp::create(nb, l, one, b1), g));
        Value v = arith::AddFOp::create(nb, l, arith::MulFOp::create(nb, l, b2, a[3]),
                                        arith::MulFOp::create(nb, l,
                                                              arith::SubFOp::create(nb, l, one, b2),
                                                              arith::MulFOp::create(nb, l, g, g)));
        Value p = a[0];
        if (decay)
          p = arith::MulFOp::create(
              nb, l, p, arith::SubFOp::create(nb, l, one, arith::MulFOp::create(nb, l, lr, wd)));
        Value mHat = arith::DivFOp::create(nb, l, m, bc1);
        Value denom = arith::AddFOp::create(
            nb, l, math::SqrtOp::create(nb, l, arith::DivFOp::create(nb, l, v, bc2)), eps);
        Value step = arith::MulFOp::create(nb, l, lr, arith::DivFOp::create(nb, l, mHat, denom));
        linalg::YieldOp::create(nb, l, ValueRange{arith::SubFOp::create(nb, l, p, step), m, v});
      });
  return SmallVector<Value>(generic.getResults());
}

} // namespace

void populateOptimizerLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<AdamWOp>(patterns, lowerAdamW);
}

} // namespace mt
