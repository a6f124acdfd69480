//===- MTActivationOps.cpp - pointwise activations: verifiers, elements, VJPs ===//
//
// GeLU, SiLU, ReLU and tanh: each verifies a float input, gives its element
// function (PointwiseOpInterface: lowering, sharding, 16-bit activations
// follow from it) and its vector-Jacobian product.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/ElementFunctions.h"
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult SiluOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

LogicalResult SiluGradOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

Value GeluOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return gelu(b, loc, operands[0], getApproximate() == GeluApproximation::tanh);
}

Value GeluGradOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  Value slope = geluDerivative(b, loc, operands[1], getApproximate() == GeluApproximation::tanh);
  return arith::MulFOp::create(b, loc, operands[0], slope);
}

/// 1 / (1 + exp(-x)) in x's type.
static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value SiluOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return arith::MulFOp::create(b, loc, operands[0], sigmoid(b, loc, operands[0]));
}

Value SiluGradOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  // d/dx x s(x) = s (1 + x (1 - s)).
  Value dy = operands[0], x = operands[1];
  Value s = sigmoid(b, loc, x);
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
  Value slope = arith::AddFOp::create(
      b, loc, one, arith::MulFOp::create(b, loc, x, arith::SubFOp::create(b, loc, one, s)));
  return arith::MulFOp::create(b, loc, dy, arith::MulFOp::create(b, loc, s, slope));
}

LogicalResult SiluOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(),
                  SiluGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getInput()));
  return success();
}

LogicalResult ReluOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

LogicalResult ReluGradOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

Value ReluOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(operands[0].getType(), 0.0));
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, operands[0], zero);
  return arith::SelectOp::create(b, loc, positive, operands[0], zero);
}

Value ReluGradOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  Value dy = operands[0], x = operands[1];
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 0.0));
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  return arith::SelectOp::create(b, loc, positive, dy, zero);
}

LogicalResult ReluOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(),
                  ReluGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getInput()));
  return success();
}

LogicalResult TanhOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

LogicalResult TanhGradOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

Value TanhOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return math::TanhOp::create(b, loc, operands[0]);
}

Value TanhGradOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  // d/dx tanh(x) = 1 - tanh(x)^2.
  Value dy = operands[0], t = math::TanhOp::create(b, loc, operands[1]);
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t.getType(), 1.0));
  Value slope = arith::SubFOp::create(b, loc, one, arith::MulFOp::create(b, loc, t, t));
  return arith::MulFOp::create(b, loc, dy, slope);
}

LogicalResult TanhOp::buildVjp(GradientBuilder &grad) {
  Value dy = grad.resultAdjoint(*this);
  grad.accumulate(getInput(),
                  TanhGradOp::create(grad.builder(), grad.loc(), dy.getType(), dy, getInput()));
  return success();
}
