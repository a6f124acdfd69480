// The VJP of mt.log_softmax (mt.log_softmax_grad) against finite
// differences: the log-probabilities are weighted per class before the head,
// so the gradient reaching them does not sum to zero over a row and the
// exp(output) * sum(grad) term matters.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @log_probs(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w1: tensor<5x6xf64> {mt.param = #mt.param<name = "w1", init = normal, std = 0.5>},
    %scale: tensor<5xf64> {mt.param = #mt.param<name = "scale", init = normal, std = 0.5>},
    %w2: tensor<2x5xf64> {mt.param = #mt.param<name = "w2", init = normal, std = 0.5>}) -> tensor<f64> {
  %d = mt.linear %x, %w1 : tensor<3x4x6xf64>, tensor<5x6xf64> -> tensor<3x4x5xf64>
  %lp = mt.log_softmax %d : tensor<3x4x5xf64>
  %s = mt.mul %lp, %scale : tensor<3x4x5xf64>, tensor<5xf64>
  %logits = mt.linear %s, %w2 : tensor<3x4x5xf64>, tensor<2x5xf64> -> tensor<3x4x2xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x2xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
