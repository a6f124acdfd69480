// The VJP of mt.add_layer_norm against finite differences, with the sum
// read again downstream (a residual stream), so the layer norm's backward
// adds the sum's own gradient (`plus`).
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @add_layer_norm(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w: tensor<6x6xf64> {mt.param = #mt.param<name = "w", init = normal, std = 0.5>},
    %g: tensor<6xf64> {mt.param = #mt.param<name = "g", init = normal, std = 0.5>},
    %b: tensor<6xf64> {mt.param = #mt.param<name = "b", init = normal, std = 0.5>},
    %w2: tensor<6x6xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>},
    %w3: tensor<4x6xf64> {mt.param = #mt.param<name = "w3", init = normal, std = 0.5>}) -> tensor<f64> {
  %h = mt.linear %x, %w : tensor<3x4x6xf64>, tensor<6x6xf64> -> tensor<3x4x6xf64>
  %s, %y = mt.add_layer_norm %h, %x, %g, %b {epsilon = 1.0e-05 : f64} : tensor<3x4x6xf64>, tensor<6xf64>
  %f = mt.linear %y, %w2 : tensor<3x4x6xf64>, tensor<6x6xf64> -> tensor<3x4x6xf64>
  %r = mt.add %s, %f : tensor<3x4x6xf64>, tensor<3x4x6xf64>
  %logits = mt.linear %r, %w3 : tensor<3x4x6xf64>, tensor<4x6xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
