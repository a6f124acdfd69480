// VJPs of the attention variants the micro GPT does not use: RMS norm,
// grouped-query heads (4 query heads over 2 key/value heads), rotary
// positions on a part of each head, ALiBi, a padding key mask, exact GeLU.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @attention_variants(
    %x: tensor<2x5x8xf64>, %keep: tensor<2x5xi1>, %labels: tensor<2x5xi32>,
    %g: tensor<8xf64> {mt.param = #mt.param<name = "g", init = ones>},
    %wq: tensor<8x8xf64> {mt.param = #mt.param<name = "wq", init = normal, std = 0.5>},
    %wkv: tensor<8x8xf64> {mt.param = #mt.param<name = "wkv", init = normal, std = 0.5>},
    %wo: tensor<6x8xf64> {mt.param = #mt.param<name = "wo", init = normal, std = 0.5>}) -> tensor<f64> {
  %n = mt.rms_norm %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x5x8xf64>, tensor<8xf64>
  %q = mt.linear %n, %wq : tensor<2x5x8xf64>, tensor<8x8xf64> -> tensor<2x5x8xf64>
  %kv = mt.linear %n, %wkv : tensor<2x5x8xf64>, tensor<8x8xf64> -> tensor<2x5x8xf64>
  %k, %v = mt.split %kv {dim = 2 : i64, sizes = array<i64: 4, 4>} : tensor<2x5x8xf64> -> tensor<2x5x4xf64>, tensor<2x5x4xf64>
  %qh = mt.split_heads %q {num_heads = 4 : i64} : tensor<2x5x8xf64> -> tensor<2x4x5x2xf64>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<2x5x4xf64> -> tensor<2x2x5x2xf64>
  %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<2x5x4xf64> -> tensor<2x2x5x2xf64>
  %qr = mt.rotary %qh {base = 100.0 : f64} : tensor<2x4x5x2xf64>
  %kr = mt.rotary %kh {base = 100.0 : f64, position_offset = 1 : i64} : tensor<2x2x5x2xf64>
  %s = mt.attention_scores %qr, %kr : tensor<2x4x5x2xf64>, tensor<2x2x5x2xf64> -> tensor<2x4x5x5xf64>
  %sb = mt.alibi %s {num_heads = 6 : i64} : tensor<2x4x5x5xf64>
  %p = mt.softmax %sb key_mask %keep : tensor<2x5xi1> {mask = #mt<mask causal>, scale = 0.7 : f64} : tensor<2x4x5x5xf64>
  %c = mt.attention_context %p, %vh : tensor<2x4x5x5xf64>, tensor<2x2x5x2xf64> -> tensor<2x4x5x2xf64>
  %m = mt.merge_heads %c : tensor<2x4x5x2xf64> -> tensor<2x5x8xf64>
  %a = mt.gelu %m approximate = none : tensor<2x5x8xf64>
  %logits = mt.linear %a, %wo : tensor<2x5x8xf64>, tensor<6x8xf64> -> tensor<2x5x6xf64>
  %loss = mt.cross_entropy %logits, %labels {num_classes = 5 : i64} : tensor<2x5x6xf64>, tensor<2x5xi32> -> tensor<f64>
  return %loss : tensor<f64>
}
