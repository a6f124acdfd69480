// The VJP of mt.fused_attention (mt.fused_attention_grad's two kernels)
// against finite differences: grouped-query heads (4 query heads over 2
// key/value heads), a causal and a padding key mask, dropout on the
// probabilities (its mask is a function of the key, so the perturbed runs
// drop the same pairs), the heads merged, and key tiles of 2 over 5 keys
// (two whole tiles and a partial one).
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @fused_attention(
    %x: tensor<2x5x8xf64>, %keep: tensor<2x5xi1>, %labels: tensor<2x5xi32>,
    %wq: tensor<8x8xf64> {mt.param = #mt.param<name = "wq", init = normal, std = 0.5>},
    %wkv: tensor<8x8xf64> {mt.param = #mt.param<name = "wkv", init = normal, std = 0.5>},
    %wo: tensor<6x8xf64> {mt.param = #mt.param<name = "wo", init = normal, std = 0.5>}) -> tensor<f64> {
  %q = mt.linear %x, %wq : tensor<2x5x8xf64>, tensor<8x8xf64> -> tensor<2x5x8xf64>
  %kv = mt.linear %x, %wkv : tensor<2x5x8xf64>, tensor<8x8xf64> -> tensor<2x5x8xf64>
  %k, %v = mt.split %kv {dim = 2 : i64, sizes = array<i64: 4, 4>} : tensor<2x5x8xf64> -> tensor<2x5x4xf64>, tensor<2x5x4xf64>
  %qh = mt.split_heads %q {num_heads = 4 : i64} : tensor<2x5x8xf64> -> tensor<2x4x5x2xf64>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<2x5x4xf64> -> tensor<2x2x5x2xf64>
  %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<2x5x4xf64> -> tensor<2x2x5x2xf64>
  %o, %lse = mt.fused_attention %qh, %kh, %vh key_mask %keep : tensor<2x5xi1> {mask = #mt<mask causal>, scale = 0.7 : f64, rate = 0.3 : f64, stream = 2 : i64, block_keys = 2 : i64} : tensor<2x4x5x2xf64>, tensor<2x2x5x2xf64>, tensor<2x2x5x2xf64> -> tensor<2x5x8xf64>, tensor<2x4x5xf64>
  %logits = mt.linear %o, %wo : tensor<2x5x8xf64>, tensor<6x8xf64> -> tensor<2x5x6xf64>
  %loss = mt.cross_entropy %logits, %labels {num_classes = 5 : i64} : tensor<2x5x6xf64>, tensor<2x5xi32> -> tensor<f64>
  return %loss : tensor<f64>
}
