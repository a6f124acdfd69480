// RUN: mt-opt %s -mt-derive-gradients -mt-build-optimizer=distributed-optimizer-shards=3 | FileCheck %s

// With the distributed optimizer over 3 ranks, the norm and the update take
// 1-D shards of ceil(n/3) elements (32 -> 11, 4 -> 2); accumulation keeps
// full gradients.
// CHECK-LABEL: func.func @m_adamw
// CHECK-SAME: (%[[W:.*]]: tensor<11xf32>, %[[B:.*]]: tensor<2xf32>, %[[GW:.*]]: tensor<11xf32>, %[[GB:.*]]: tensor<2xf32>, %[[MW:.*]]: tensor<11xf32>, %[[MB:.*]]: tensor<2xf32>, %[[VW:.*]]: tensor<11xf32>, %[[VB:.*]]: tensor<2xf32>, %[[H:.*]]: tensor<8xf32>)
// CHECK-SAME: mt.shards = 3 : i64
// CHECK: mt.adamw %[[W]], %[[GW]], %[[MW]], %[[VW]], %[[H]] {decay}
// CHECK: mt.adamw %[[B]], %[[GB]], %[[MB]], %[[VB]], %[[H]] :
// CHECK-LABEL: func.func @m_grad_sq_norm
// CHECK-SAME: (%[[G0:.*]]: tensor<11xf32>, %[[G1:.*]]: tensor<2xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK-SAME: mt.shards = 3 : i64
// CHECK-LABEL: func.func @m_accumulate
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<4xf32>)
func.func @m(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
             %b: tensor<4xf32> {mt.param = #mt.param<name = "b", init = zeros>},
             %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %l : tensor<f32>
}
