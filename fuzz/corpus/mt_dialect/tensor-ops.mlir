// VJPs of matmul (transposes, a shared matrix), broadcast mul and add,
// reshape, concat, split and stacked-layer slices.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @tensor_ops(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %a: tensor<6x5xf64> {mt.param = #mt.param<name = "a", init = normal, std = 0.5>},
    %b: tensor<3x4x5xf64> {mt.param = #mt.param<name = "b", init = normal, std = 0.5>},
    %s: tensor<2x5xf64> {mt.param = #mt.param<name = "s", init = ones>},
    %c: tensor<5x4xf64> {mt.param = #mt.param<name = "c", init = normal, std = 0.5>},
    %bias: tensor<4x5xf64> {mt.param = #mt.param<name = "bias", init = zeros>}) -> tensor<f64> {
  // shared rhs matrix
  %y = mt.matmul %x, %a : tensor<3x4x6xf64>, tensor<6x5xf64> -> tensor<3x4x5xf64>
  // batched, transposed rhs
  %yy = mt.matmul %y, %b {transpose_rhs} : tensor<3x4x5xf64>, tensor<3x4x5xf64> -> tensor<3x4x4xf64>
  // batched, transposed lhs
  %z = mt.matmul %yy, %y {transpose_lhs} : tensor<3x4x4xf64>, tensor<3x4x5xf64> -> tensor<3x4x5xf64>
  %s0 = mt.slice_layer %s {layer = 0 : i64} : tensor<2x5xf64> -> tensor<5xf64>
  %s1 = mt.slice_layer %s {layer = 1 : i64} : tensor<2x5xf64> -> tensor<5xf64>
  %z0 = mt.mul %z, %s0 : tensor<3x4x5xf64>, tensor<5xf64>
  %z1 = mt.mul %z0, %s1 : tensor<3x4x5xf64>, tensor<5xf64>
  %zb = mt.add %z1, %bias : tensor<3x4x5xf64>, tensor<4x5xf64>
  %flat = mt.reshape %zb : tensor<3x4x5xf64> -> tensor<12x5xf64>
  %l, %r = mt.split %flat {dim = 1 : i64, sizes = array<i64: 2, 3>} : tensor<12x5xf64> -> tensor<12x2xf64>, tensor<12x3xf64>
  %rl = mt.concat %r, %l {dim = 1 : i64} : tensor<12x3xf64>, tensor<12x2xf64> -> tensor<12x5xf64>
  %back = mt.reshape %rl : tensor<12x5xf64> -> tensor<3x4x5xf64>
  %logits = mt.matmul %back, %c : tensor<3x4x5xf64>, tensor<5x4xf64> -> tensor<3x4x4xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x4xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
