// The VJP of mt.bias_gelu (input and bias), both approximations, against
// finite differences.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @bias_gelu(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w: tensor<5x6xf64> {mt.param = #mt.param<name = "w", init = normal, std = 0.5>},
    %b: tensor<5xf64> {mt.param = #mt.param<name = "b", init = normal, std = 0.5>},
    %w2: tensor<4x5xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>},
    %b2: tensor<5xf64> {mt.param = #mt.param<name = "b2", init = normal, std = 0.5>}) -> tensor<f64> {
  %h = mt.linear %x, %w : tensor<3x4x6xf64>, tensor<5x6xf64> -> tensor<3x4x5xf64>
  %g = mt.bias_gelu %h, %b approximate = tanh : tensor<3x4x5xf64>, tensor<5xf64>
  %g2 = mt.bias_gelu %g, %b2 approximate = none : tensor<3x4x5xf64>, tensor<5xf64>
  %logits = mt.linear %g2, %w2 : tensor<3x4x5xf64>, tensor<4x5xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
