// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2 sequence-parallel=true" | FileCheck %s

// Logits split along the sequence (a small head on a sequence-parallel
// activation, as BERT's sentence-order classifier): each rank places its
// piece among zeros and a sum over the ranks makes the logits whole on every
// rank; the loss (and the accuracy metric) then run replicated. The
// placement's gradient is the rank's own piece, so the loss stays exact.
// CHECK-LABEL: func.func @sequence_split_head
// CHECK: %[[X:.*]] = mt.reduce_scatter %{{.*}} on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<2x4x16xf32> -> tensor<2x2x16xf32>
// CHECK: %[[I:.*]] = mt.axis_index
// CHECK: %[[WHOLE:.*]] = mt.shard_slice_grad %[[X]][%[[I]] : tensor<i64>] dim = 1 parts = 2 : tensor<2x2x16xf32> -> tensor<2x4x16xf32>
// CHECK: %[[SUM:.*]] = mt.all_reduce %[[WHOLE]] on @mesh axes = ["tp"] reduction = sum : tensor<2x4x16xf32>
// CHECK: mt.cross_entropy %[[SUM]], %{{.*}} : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
// CHECK: mt.shard_slice_grad
// CHECK: %[[SUM2:.*]] = mt.all_reduce
// CHECK: mt.accuracy %[[SUM2]], %{{.*}} : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
func.func @sequence_split_head(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x16xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>})
    -> (tensor<f32>, tensor<f32> {mt.metric = "accuracy"}) {
  %x = mt.embedding %wte[%tokens] : tensor<16x16xf32>, tensor<2x4xi32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %x, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  %acc = mt.accuracy %x, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss, %acc : tensor<f32>, tensor<f32>
}

// Vocab-parallel logits (a tied head): the accuracy metric takes the row
// maximum and the label's logit as the loss reduces them, then compares.
// CHECK-LABEL: func.func @vocab_parallel_accuracy
// CHECK: mt.cross_entropy_from_stats
// CHECK: %[[MAX:.*]] = mt.all_reduce %{{.*}} on @mesh axes = ["tp"] reduction = max
// CHECK: %{{.*}}, %[[LOCAL:.*]] = mt.vocab_parallel_stats
// CHECK: %[[LABEL:.*]] = mt.all_reduce %[[LOCAL]] on @mesh axes = ["tp"] reduction = sum
// CHECK: mt.accuracy_from_stats %[[LABEL]], %[[MAX]] : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
func.func @vocab_parallel_accuracy(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>})
    -> (tensor<f32>, tensor<f32> {mt.metric = "accuracy"}) {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %logits = mt.linear %x, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  %acc = mt.accuracy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss, %acc : tensor<f32>, tensor<f32>
}
