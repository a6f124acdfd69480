// The VJP of mt.relative_position_bias (mt.relative_position_bias_grad: the
// table's gradient summed per bucket) against finite differences: T5's
// encoder self-attention (bidirectional buckets, the table used by two
// layers as a stack shares it) and its decoder's (causal buckets).
// Six positions, eight or six buckets and max_distance 5 reach both the
// exact and the logarithmic buckets.
// RUN: mt-gradcheck %s | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @relative_bias(
    %x: tensor<2x6x4xf64>, %labels: tensor<2x6xi64>, %mask: tensor<2x6xf64>,
    %wq: tensor<4x4xf64> {mt.param = #mt.param<name = "wq", init = normal, std = 0.5>},
    %wk: tensor<4x4xf64> {mt.param = #mt.param<name = "wk", init = normal, std = 0.5>},
    %enc: tensor<8x2xf64> {mt.param = #mt.param<name = "enc", init = normal, std = 0.5>},
    %dec: tensor<6x2xf64> {mt.param = #mt.param<name = "dec", init = normal, std = 0.5>}) -> tensor<f64> {
  %q = mt.linear %x, %wq : tensor<2x6x4xf64>, tensor<4x4xf64> -> tensor<2x6x4xf64>
  %k = mt.linear %x, %wk : tensor<2x6x4xf64>, tensor<4x4xf64> -> tensor<2x6x4xf64>
  %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<2x6x4xf64> -> tensor<2x2x6x2xf64>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<2x6x4xf64> -> tensor<2x2x6x2xf64>
  %vh = mt.split_heads %x {num_heads = 2 : i64} : tensor<2x6x4xf64> -> tensor<2x2x6x2xf64>
  %s = mt.attention_scores %qh, %kh : tensor<2x2x6x2xf64>, tensor<2x2x6x2xf64> -> tensor<2x2x6x6xf64>
  %sb = mt.relative_position_bias %s, %enc {bidirectional, max_distance = 5 : i64} : tensor<2x2x6x6xf64>, tensor<8x2xf64>
  %p = mt.softmax %sb : tensor<2x2x6x6xf64>
  %c = mt.attention_context %p, %vh : tensor<2x2x6x6xf64>, tensor<2x2x6x2xf64> -> tensor<2x2x6x2xf64>
  // The same table again (a second layer of the stack).
  %s2 = mt.attention_scores %c, %kh : tensor<2x2x6x2xf64>, tensor<2x2x6x2xf64> -> tensor<2x2x6x6xf64>
  %sb2 = mt.relative_position_bias %s2, %enc {bidirectional, max_distance = 5 : i64} : tensor<2x2x6x6xf64>, tensor<8x2xf64>
  // A causal decoder's buckets.
  %sb3 = mt.relative_position_bias %sb2, %dec {max_distance = 5 : i64} : tensor<2x2x6x6xf64>, tensor<6x2xf64>
  %p2 = mt.softmax %sb3 {mask = #mt<mask causal>} : tensor<2x2x6x6xf64>
  %c2 = mt.attention_context %p2, %vh : tensor<2x2x6x6xf64>, tensor<2x2x6x2xf64> -> tensor<2x2x6x2xf64>
  %m = mt.merge_heads %c2 : tensor<2x2x6x2xf64> -> tensor<2x6x4xf64>
  %loss = mt.cross_entropy %m, %labels mask %mask : tensor<2x6x4xf64>, tensor<2x6xi64>, tensor<2x6xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
