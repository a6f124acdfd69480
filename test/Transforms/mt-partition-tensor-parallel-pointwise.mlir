// RUN: mt-opt %s -split-input-file --mt-partition-tensor-parallel="tp=2" | FileCheck %s

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

// -----

// A whole operand of a pointwise op takes this rank's piece of the other
// operand's split: the replicated %gate passes mt.vary (its gradient sums
// the ranks') and mt.shard_slice along the split feature dimension, and a
// scale of lower rank is sliced along its own (last) dimension.
// CHECK-LABEL: func.func @whole_operand_takes_piece
// CHECK-SAME: %[[GATE:[^:]*]]: tensor<2x4x16xf32>, %[[SCALE:[^:]*]]: tensor<16xf32>
// CHECK: %[[F:.*]] = mt.linear %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
// CHECK: %[[GV:.*]] = mt.vary %[[GATE]] on @mesh axes = ["tp"]
// CHECK: %[[I:.*]] = mt.axis_index
// CHECK: %[[GP:.*]] = mt.shard_slice %[[GV]][%[[I]] : tensor<i64>] dim = 2 parts = 2 : tensor<2x4x16xf32> -> tensor<2x4x8xf32>
// CHECK: %[[S:.*]] = mt.silu_grad %[[F]], %[[GP]] : tensor<2x4x8xf32>
// CHECK: %[[BV:.*]] = mt.vary %[[SCALE]] on @mesh axes = ["tp"]
// CHECK: %[[BP:.*]] = mt.shard_slice %[[BV]][%{{.*}} : tensor<i64>] dim = 0 parts = 2 : tensor<16xf32> -> tensor<8xf32>
// CHECK: %[[B:.*]] = mt.mul %[[S]], %[[BP]] : tensor<2x4x8xf32>, tensor<8xf32>
// CHECK: mt.linear %[[B]], %{{.*}} : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
func.func @whole_operand_takes_piece(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %gate: tensor<2x4x16xf32>, %scale: tensor<16xf32>,
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w1: tensor<16x8xf32> {mt.param = #mt.param<name = "w1", init = normal, std = 2.0e-02>},
    %w2: tensor<8x16xf32> {mt.param = #mt.param<name = "w2", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %f = mt.linear %x, %w1 : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %s = mt.silu_grad %f, %gate : tensor<2x4x16xf32>
  %b = mt.mul %s, %scale : tensor<2x4x16xf32>, tensor<16xf32>
  %y = mt.linear %b, %w2 : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %y, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
