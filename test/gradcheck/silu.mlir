// The VJP of mt.silu (mt.silu_grad) against finite differences, in a
// SwiGLU-style gated MLP: silu(x W1) * (x W2), then W3.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @swiglu(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w1: tensor<5x6xf64> {mt.param = #mt.param<name = "w1", init = normal, std = 0.5>},
    %w2: tensor<5x6xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>},
    %w3: tensor<4x5xf64> {mt.param = #mt.param<name = "w3", init = normal, std = 0.5>}) -> tensor<f64> {
  %gate = mt.linear %x, %w1 : tensor<3x4x6xf64>, tensor<5x6xf64> -> tensor<3x4x5xf64>
  %up = mt.linear %x, %w2 : tensor<3x4x6xf64>, tensor<5x6xf64> -> tensor<3x4x5xf64>
  %s = mt.silu %gate : tensor<3x4x5xf64>
  %h = mt.mul %s, %up : tensor<3x4x5xf64>, tensor<3x4x5xf64>
  %logits = mt.linear %h, %w3 : tensor<3x4x5xf64>, tensor<4x5xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
