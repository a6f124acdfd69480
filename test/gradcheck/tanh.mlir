// The VJP of mt.tanh (mt.tanh_grad) against finite differences, in a
// BERT-style pooler: tanh(x W1 + b1), then a binary head.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @pooler(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w1: tensor<6x6xf64> {mt.param = #mt.param<name = "w1", init = normal, std = 0.5>},
    %b1: tensor<6xf64> {mt.param = #mt.param<name = "b1", init = normal, std = 0.5>},
    %w2: tensor<2x6xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>}) -> tensor<f64> {
  %d = mt.linear %x, %w1, %b1 : tensor<3x4x6xf64>, tensor<6x6xf64>, tensor<6xf64> -> tensor<3x4x6xf64>
  %t = mt.tanh %d : tensor<3x4x6xf64>
  %logits = mt.linear %t, %w2 : tensor<3x4x6xf64>, tensor<2x6xf64> -> tensor<3x4x2xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x2xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
