// The VJP of mt.bias_dropout_add (input, bias and residual) against finite
// differences: the dropout's mask is a function of its key, so the
// perturbed runs drop the same elements.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @bias_dropout_add(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w: tensor<6x6xf64> {mt.param = #mt.param<name = "w", init = normal, std = 0.5>},
    %b: tensor<6xf64> {mt.param = #mt.param<name = "b", init = normal, std = 0.5>},
    %w2: tensor<4x6xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>}) -> tensor<f64> {
  %h = mt.linear %x, %w : tensor<3x4x6xf64>, tensor<6x6xf64> -> tensor<3x4x6xf64>
  %r = mt.bias_dropout_add %h, %b, %x {rate = 0.3 : f64, stream = 1 : i64} : tensor<3x4x6xf64>, tensor<6xf64>
  %logits = mt.linear %r, %w2 : tensor<3x4x6xf64>, tensor<4x6xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
