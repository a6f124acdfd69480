// The VJP of mt.fused_attention for cross attention: 3 queries over 7 keys
// without a causal mask, heads not merged, key tiles of 3 (the last one
// partial), one key head per query head.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @fused_attention_cross(
    %x: tensor<2x3x4xf64>, %mem: tensor<2x7x4xf64>, %labels: tensor<2x2x3xi32>,
    %wq: tensor<4x4xf64> {mt.param = #mt.param<name = "wq", init = normal, std = 0.5>},
    %wk: tensor<4x4xf64> {mt.param = #mt.param<name = "wk", init = normal, std = 0.5>},
    %wv: tensor<4x4xf64> {mt.param = #mt.param<name = "wv", init = normal, std = 0.5>},
    %wo: tensor<5x2xf64> {mt.param = #mt.param<name = "wo", init = normal, std = 0.5>}) -> tensor<f64> {
  %q = mt.linear %x, %wq : tensor<2x3x4xf64>, tensor<4x4xf64> -> tensor<2x3x4xf64>
  %k = mt.linear %mem, %wk : tensor<2x7x4xf64>, tensor<4x4xf64> -> tensor<2x7x4xf64>
  %v = mt.linear %mem, %wv : tensor<2x7x4xf64>, tensor<4x4xf64> -> tensor<2x7x4xf64>
  %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<2x3x4xf64> -> tensor<2x2x3x2xf64>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<2x7x4xf64> -> tensor<2x2x7x2xf64>
  %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<2x7x4xf64> -> tensor<2x2x7x2xf64>
  %o, %lse = mt.fused_attention %qh, %kh, %vh {scale = 0.9 : f64, block_keys = 3 : i64} : tensor<2x2x3x2xf64>, tensor<2x2x7x2xf64>, tensor<2x2x7x2xf64> -> tensor<2x2x3x2xf64>, tensor<2x2x3xf64>
  %logits = mt.linear %o, %wo : tensor<2x2x3x2xf64>, tensor<5x2xf64> -> tensor<2x2x3x5xf64>
  %loss = mt.cross_entropy %logits, %labels {num_classes = 5 : i64} : tensor<2x2x3x5xf64>, tensor<2x2x3xi32> -> tensor<f64>
  return %loss : tensor<f64>
}
