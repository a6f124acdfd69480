// RUN: mt-opt %s -mt-build-evaluation | FileCheck %s

// The model is kept; its evaluation copy passes dropout inputs through.
// CHECK-LABEL: func.func @m(
// CHECK: mt.dropout
// CHECK-LABEL: func.func @m_eval
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {mt.param = {{.*}}}, %[[X:.*]]: tensor<2x8xf32>, %[[L:.*]]: tensor<2xi32>) -> tensor<f32>
// CHECK-SAME: attributes {mt.gradient_of = @m, mt.model = @m, mt.role = #mt<role eval>}
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

// A fused bias-dropout-add adds without dropping in the evaluation copy.
// CHECK-LABEL: func.func @fused_eval
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<8xf32> {mt.param = {{.*}}}, %[[R:.*]]: tensor<2x8xf32>)
// CHECK-NOT: mt.bias_dropout_add
// CHECK: %[[XB:.*]] = mt.add %[[X]], %[[B]]
// CHECK: %[[SUM:.*]] = mt.add %[[R]], %[[XB]]
// CHECK: mt.sum_to %[[SUM]]
func.func @fused(%x: tensor<2x8xf32>, %b: tensor<8xf32> {mt.param = #mt.param<name = "b", init = zeros>},
                 %r: tensor<2x8xf32>) -> tensor<f32> {
  %y = mt.bias_dropout_add %x, %b, %r {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>, tensor<8xf32>
  %loss = mt.sum_to %y : tensor<2x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
