// RUN: mt-opt %s -mt-derive-gradients -mt-build-optimizer=distributed-optimizer-shards=3 | FileCheck %s

// With the distributed optimizer over 3 ranks, the norm and the update take
// 1-D shards of ceil(n/3) elements (32 -> 11, 4 -> 2); accumulation keeps
// full gradients.
// CHECK-LABEL: func.func @m_adamw
// CHECK-SAME: (%[[W:[[:alnum:]_]+]]: tensor<11xf32> {mt.buffer = #mt.buffer<param_shard, "w">}, %[[B:[[:alnum:]_]+]]: tensor<2xf32> {mt.buffer = #mt.buffer<param_shard, "b">},
// CHECK-SAME: %[[GW:[[:alnum:]_]+]]: tensor<11xf32> {mt.buffer = #mt.buffer<grad_shard, "w">}, %[[GB:[[:alnum:]_]+]]: tensor<2xf32> {mt.buffer = #mt.buffer<grad_shard, "b">},
// CHECK-SAME: %[[MW:[[:alnum:]_]+]]: tensor<11xf32> {mt.buffer = #mt.buffer<exp_avg, "w">}, %[[MB:[[:alnum:]_]+]]: tensor<2xf32> {mt.buffer = #mt.buffer<exp_avg, "b">},
// CHECK-SAME: %[[VW:[[:alnum:]_]+]]: tensor<11xf32> {mt.buffer = #mt.buffer<exp_avg_sq, "w">}, %[[VB:[[:alnum:]_]+]]: tensor<2xf32> {mt.buffer = #mt.buffer<exp_avg_sq, "b">},
// CHECK-SAME: %[[H:[[:alnum:]_]+]]: tensor<8xf32> {mt.buffer = #mt.buffer<hyper>})
// CHECK-SAME: -> (tensor<11xf32> {mt.buffer = #mt.buffer<param_shard, "w">}
// CHECK-NOT: mt.shards
// CHECK: mt.adamw %[[W]], %[[GW]], %[[MW]], %[[VW]], %[[H]] {decay}
// CHECK: mt.adamw %[[B]], %[[GB]], %[[MB]], %[[VB]], %[[H]] :
// CHECK-LABEL: func.func @m_grad_sq_norm
// CHECK-SAME: (%[[G0:[[:alnum:]_]+]]: tensor<11xf32> {mt.buffer = #mt.buffer<grad_shard, "w">}, %[[G1:[[:alnum:]_]+]]: tensor<2xf32> {mt.buffer = #mt.buffer<grad_shard, "b">})
// CHECK-SAME: -> (tensor<f32> {mt.buffer = #mt.buffer<grad_square, "w">}, tensor<f32> {mt.buffer = #mt.buffer<grad_square, "b">})
// CHECK-NOT: mt.shards
// CHECK-LABEL: func.func @m_accumulate
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32> {mt.buffer = #mt.buffer<grad_accumulator, "w">}, %{{.*}}: tensor<4xf32> {mt.buffer = #mt.buffer<grad_accumulator, "b">}, %{{.*}}: tensor<4x8xf32> {mt.buffer = #mt.buffer<gradient, "w">}, %{{.*}}: tensor<4xf32> {mt.buffer = #mt.buffer<gradient, "b">})
func.func @m(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
             %b: tensor<4xf32> {mt.param = #mt.param<name = "b", init = zeros>},
             %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %l : tensor<f32>
}
