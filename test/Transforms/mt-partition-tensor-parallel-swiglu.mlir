// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2" | FileCheck %s
// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2 sequence-parallel=1" | FileCheck %s --check-prefix=SP

// SwiGLU (Llama's MLP): a split passes through mt.mul, so the gate and up
// projections are both column-parallel, their product stays split and the
// down projection is row-parallel; the norm's output is made varying once
// for both projections.
// CHECK-LABEL: func.func @swiglu
// CHECK-SAME: tensor<20x16xf32> {mt.param = #mt.param<name = "gate"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [tp, _]>}
// CHECK-SAME: tensor<20x16xf32> {mt.param = #mt.param<name = "up"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [tp, _]>}
// CHECK-SAME: tensor<16x20xf32> {mt.param = #mt.param<name = "down"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, tp]>}
// CHECK: %[[N:.*]] = mt.rms_norm
// CHECK: %[[V:.*]] = mt.vary %[[N]]
// CHECK-NOT: mt.vary
// CHECK: %[[G:.*]] = mt.linear %[[V]], %{{.*}} : tensor<2x4x16xf32>, tensor<20x16xf32> -> tensor<2x4x20xf32>
// CHECK: %[[U:.*]] = mt.linear %[[V]], %{{.*}} : tensor<2x4x16xf32>, tensor<20x16xf32> -> tensor<2x4x20xf32>
// CHECK: %[[S:.*]] = mt.silu %[[G]] : tensor<2x4x20xf32>
// CHECK: %[[M:.*]] = mt.mul %[[S]], %[[U]] : tensor<2x4x20xf32>, tensor<2x4x20xf32>
// CHECK: %[[D:.*]] = mt.linear %[[M]], %{{.*}} : tensor<2x4x20xf32>, tensor<16x20xf32> -> tensor<2x4x16xf32>
// CHECK: mt.all_reduce %[[D]]

// A replicated value times a split one: the replicated operand takes its
// piece (here the sequence-parallel embedding's split along the sequence).
// SP-LABEL: func.func @replicated_times_split
// SP: %[[E:.*]] = mt.reduce_scatter
// SP: %[[P:.*]] = mt.shard_slice %{{.*}}[%{{.*}} : tensor<i64>] dim = 1 parts = 2 : tensor<2x4x16xf32> -> tensor<2x2x16xf32>
// SP: mt.mul %[[P]], %[[E]] : tensor<2x2x16xf32>, tensor<2x2x16xf32>
func.func @swiglu(%x: tensor<2x4x16xf32>, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %norm: tensor<16xf32> {mt.param = #mt.param<name = "norm", init = ones>},
    %gate: tensor<40x16xf32> {mt.param = #mt.param<name = "gate", init = normal, std = 2.0e-02>},
    %up: tensor<40x16xf32> {mt.param = #mt.param<name = "up", init = normal, std = 2.0e-02>},
    %down: tensor<16x40xf32> {mt.param = #mt.param<name = "down", init = normal, std = 2.0e-02>},
    %head: tensor<8x16xf32> {mt.param = #mt.param<name = "head", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %n = mt.rms_norm %x, %norm {epsilon = 1.0e-05 : f64} : tensor<2x4x16xf32>, tensor<16xf32>
  %g = mt.linear %n, %gate : tensor<2x4x16xf32>, tensor<40x16xf32> -> tensor<2x4x40xf32>
  %u = mt.linear %n, %up : tensor<2x4x16xf32>, tensor<40x16xf32> -> tensor<2x4x40xf32>
  %s = mt.silu %g : tensor<2x4x40xf32>
  %m = mt.mul %s, %u : tensor<2x4x40xf32>, tensor<2x4x40xf32>
  %d = mt.linear %m, %down : tensor<2x4x40xf32>, tensor<16x40xf32> -> tensor<2x4x16xf32>
  %logits = mt.linear %d, %head : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @replicated_times_split(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %h: tensor<2x4x16xf32>,
    %wte: tensor<8x16xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<8x16xf32>, tensor<2x4xi32> -> tensor<2x4x16xf32>
  %y = mt.mul %h, %x : tensor<2x4x16xf32>, tensor<2x4x16xf32>
  %logits = mt.linear %y, %wte : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
