// The VJP of mt.relu (mt.relu_grad) against finite differences, in a T5
// v1.0-style feed-forward block: relu(x W1) W2 (no biases).
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @relu_mlp(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w1: tensor<8x6xf64> {mt.param = #mt.param<name = "w1", init = normal, std = 0.5>},
    %w2: tensor<4x8xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>}) -> tensor<f64> {
  %h = mt.linear %x, %w1 : tensor<3x4x6xf64>, tensor<8x6xf64> -> tensor<3x4x8xf64>
  %r = mt.relu %h : tensor<3x4x8xf64>
  %logits = mt.linear %r, %w2 : tensor<3x4x8xf64>, tensor<4x8xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
