// RUN: mt-opt %s -mt-build-evaluation | FileCheck %s

// The model is kept; its evaluation copy passes dropout inputs through.
// CHECK-LABEL: func.func @m(
// CHECK: mt.dropout
// CHECK-LABEL: func.func @m_eval
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mt.param = {{.*}}}, %[[X:.*]]: tensor<2x8xf32>, %[[L:.*]]: tensor<2xi32>) -> tensor<f32>
// CHECK-SAME: attributes {mt.gradient_of = @m, mt.model = @m, mt.role = "eval"}
// CHECK-NOT: mt.dropout
// CHECK: %[[Y:.*]] = mt.linear %[[X]], %[[W]]
// CHECK: %[[LOSS:.*]] = mt.cross_entropy %[[Y]], %[[L]]
// CHECK: return %[[LOSS]]
func.func @m(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
             %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %d = mt.dropout %x {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  %y = mt.linear %d, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
