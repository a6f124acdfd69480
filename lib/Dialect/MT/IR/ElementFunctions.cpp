//===- ElementFunctions.cpp - scalar functions shared by ops and kernels --===//
#include "mt/Dialect/MT/IR/ElementFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace mt {
namespace {

Value cst(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
}
Value addF(OpBuilder &b, Location l, Value x, Value y) { return arith::AddFOp::create(b, l, x, y); }
Value mulF(OpBuilder &b, Location l, Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }
Value subF(OpBuilder &b, Location l, Value x, Value y) { return arith::SubFOp::create(b, l, x, y); }

} // namespace

/// GeLU, exact or tanh-approximated.
Value gelu(OpBuilder &b, Location l, Value x, bool tanhApprox) {
  Type t = x.getType();
  auto c = [&](double v) { return cst(b, l, t, v); };
  Value inner;
  if (tanhApprox) {
    Value x3 = mulF(b, l, mulF(b, l, x, x), x);
    Value poly = addF(b, l, x, mulF(b, l, c(0.044715), x3));
    inner = math::TanhOp::create(b, l, mulF(b, l, c(std::sqrt(2.0 / M_PI)), poly));
  } else {
    inner = math::ErfOp::create(b, l, mulF(b, l, x, c(M_SQRT1_2)));
  }
  return mulF(b, l, mulF(b, l, c(0.5), x), addF(b, l, c(1.0), inner));
}

Value geluDerivative(OpBuilder &b, Location l, Value x, bool tanhApprox) {
  Type t = x.getType();
  auto c = [&](double v) { return cst(b, l, t, v); };
  if (tanhApprox) {
    double k = std::sqrt(2.0 / M_PI);
    Value x2 = mulF(b, l, x, x);
    Value u = mulF(b, l, c(k), addF(b, l, x, mulF(b, l, c(0.044715), mulF(b, l, x2, x))));
    Value th = math::TanhOp::create(b, l, u);
    Value left = mulF(b, l, c(0.5), addF(b, l, c(1.0), th));
    Value sech2 = subF(b, l, c(1.0), mulF(b, l, th, th));
    Value du = mulF(b, l, c(k), addF(b, l, c(1.0), mulF(b, l, c(3 * 0.044715), x2)));
    return addF(b, l, left, mulF(b, l, mulF(b, l, c(0.5), x), mulF(b, l, sech2, du)));
  }
  Value cdf = mulF(b, l, c(0.5),
                   addF(b, l, c(1.0), math::ErfOp::create(b, l, mulF(b, l, x, c(M_SQRT1_2)))));
  Value pdf = mulF(b, l, c(1.0 / std::sqrt(2.0 * M_PI)),
                   math::ExpOp::create(b, l, mulF(b, l, c(-0.5), mulF(b, l, x, x))));
  return addF(b, l, cdf, mulF(b, l, x, pdf));
}

Value keepScaled(OpBuilder &nb, Location l, Value keep, Value x, double scale) {
  Type t = x.getType();
  Value scaled =
      arith::MulFOp::create(nb, l, x, arith::ConstantOp::create(nb, l, nb.getFloatAttr(t, scale)));
  Value zero = arith::ConstantOp::create(nb, l, nb.getFloatAttr(t, 0.0));
  return arith::SelectOp::create(nb, l, keep, scaled, zero).getResult();
}

} // namespace mt
