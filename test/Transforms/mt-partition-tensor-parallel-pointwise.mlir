// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2" | FileCheck %s

// Pointwise ops (PointwiseOpInterface, here mt.silu) keep the layout their
// operand has: the first MLP linear stays column-parallel through mt.silu
// and the second is row-parallel with one reduction, as with mt.gelu.
// (A SwiGLU gate, silu(x W1) * (x W2), needs the product of two
// column-parallel linears to keep their split: not derived yet.)

// CHECK-LABEL: func.func @silu_mlp
// CHECK-SAME: tensor<1x16x8xf32> {mt.param = #mt.param<name = "h.mlp.fc.weight"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, tp, _]>}
// CHECK-SAME: tensor<1x8x16xf32> {mt.param = #mt.param<name = "h.mlp.proj.weight"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, _, tp]>}
// CHECK: mt.layer_stack
// CHECK: %[[FC:.*]] = mt.linear %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
// CHECK: %[[S:.*]] = mt.silu %[[FC]] : tensor<2x4x16xf32>
// CHECK: %[[OUT:.*]] = mt.linear %[[S]], %{{.*}} : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
// CHECK: mt.all_reduce %[[OUT]] on @mesh axes = ["tp"] reduction = sum
// CHECK: mt.yield
func.func @silu_mlp(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %ln_w: tensor<1x8xf32> {mt.param = #mt.param<name = "h.ln.weight", init = ones>},
    %fc_w: tensor<1x32x8xf32> {mt.param = #mt.param<name = "h.mlp.fc.weight", init = normal, std = 2.0e-02>},
    %proj_w: tensor<1x8x32xf32> {mt.param = #mt.param<name = "h.mlp.proj.weight", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%hid = %x : tensor<2x4x8xf32>) layers (%lw = %ln_w : tensor<1x8xf32>,
        %fw = %fc_w : tensor<1x32x8xf32>, %pw = %proj_w : tensor<1x8x32xf32>) -> tensor<2x4x8xf32> {
    %a = mt.rms_norm %hid, %lw {epsilon = 1.0e-05 : f64} : tensor<2x4x8xf32>, tensor<8xf32>
    %f = mt.linear %a, %fw : tensor<2x4x8xf32>, tensor<32x8xf32> -> tensor<2x4x32xf32>
    %s = mt.silu %f : tensor<2x4x32xf32>
    %d = mt.linear %s, %pw : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
    %r = mt.add %hid, %d : tensor<2x4x8xf32>, tensor<2x4x8xf32>
    mt.yield %r : tensor<2x4x8xf32>
  }
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
