// RUN: mt-opt %s -split-input-file -mt-derive-gradients -mt-build-optimizer -verify-diagnostics | FileCheck %s

// A matrix decays, a bias does not; accumulation adds, the norm sums squares.
// Each argument and result of the step functions says which runtime buffer
// it is (mt.buffer), so the plan does not name them by position.
// CHECK-LABEL: func.func @m(
// CHECK-SAME: attributes {mt.role = #mt<role forward>}
// CHECK-LABEL: func.func @m_grad(
// CHECK-SAME: mt.role = #mt<role train_step>
// CHECK-LABEL: func.func @m_adamw
// CHECK-SAME: (%[[W:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<param, "w">}, %[[B:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<param, "b">},
// CHECK-SAME: %[[GW:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<grad_accumulator, "w">}, %[[GB:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<grad_accumulator, "b">},
// CHECK-SAME: %[[MW:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<exp_avg, "w">}, %[[MB:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<exp_avg, "b">},
// CHECK-SAME: %[[VW:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<exp_avg_sq, "w">}, %[[VB:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<exp_avg_sq, "b">},
// CHECK-SAME: %[[H:[[:alnum:]_]+]]: tensor<8xf32> {mt.buffer = #mt.buffer<hyper>})
// CHECK-SAME: -> (tensor<4x8xf32> {mt.buffer = #mt.buffer<param, "w">}, tensor<4xf32> {mt.buffer = #mt.buffer<param, "b">}, tensor<4x8xf32> {mt.buffer = #mt.buffer<exp_avg, "w">}
// CHECK-SAME: attributes {mt.model = @m, mt.role = #mt<role optimizer>}
// CHECK: %[[PW:[[:alnum:]_]+]], %[[NMW:[[:alnum:]_]+]], %[[NVW:[[:alnum:]_]+]] = mt.adamw %[[W]], %[[GW]], %[[MW]], %[[VW]], %[[H]] {decay}
// CHECK: %[[PB:[[:alnum:]_]+]], %[[NMB:[[:alnum:]_]+]], %[[NVB:[[:alnum:]_]+]] = mt.adamw %[[B]], %[[GB]], %[[MB]], %[[VB]], %[[H]] :
// CHECK: return %[[PW]], %[[PB]], %[[NMW]], %[[NMB]], %[[NVW]], %[[NVB]]
// CHECK-LABEL: func.func @m_grad_sq_norm
// CHECK-SAME: (%[[G0:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<grad_accumulator, "w">}, %[[G1:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<grad_accumulator, "b">})
// CHECK-SAME: -> (tensor<f32> {mt.buffer = #mt.buffer<grad_square, "w">}, tensor<f32> {mt.buffer = #mt.buffer<grad_square, "b">})
// CHECK: %[[SQ0:.*]] = mt.mul %[[G0]], %[[G0]]
// CHECK: %[[S0:.*]] = mt.sum_to %[[SQ0]] : tensor<4x8xf32> -> tensor<f32>
// CHECK: %[[SQ1:.*]] = mt.mul %[[G1]], %[[G1]]
// CHECK: %[[S1:.*]] = mt.sum_to %[[SQ1]] : tensor<4xf32> -> tensor<f32>
// CHECK: return %[[S0]], %[[S1]]
// CHECK-LABEL: func.func @m_accumulate
// CHECK-SAME: (%[[A0:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<grad_accumulator, "w">}, %[[A1:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<grad_accumulator, "b">},
// CHECK-SAME: %[[D0:[[:alnum:]_]+]]: tensor<4x8xf32> {mt.buffer = #mt.buffer<gradient, "w">}, %[[D1:[[:alnum:]_]+]]: tensor<4xf32> {mt.buffer = #mt.buffer<gradient, "b">})
// CHECK: %[[R0:.*]] = mt.add %[[A0]], %[[D0]]
// CHECK: %[[R1:.*]] = mt.add %[[A1]], %[[D1]]
// CHECK: return %[[R0]], %[[R1]]
func.func @m(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
             %b: tensor<4xf32> {mt.param = #mt.param<name = "b", init = zeros>},
             %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Per-layer vectors of an unrolled stack ([L, n]) do not decay; per-layer matrices do.
// CHECK-LABEL: func.func @stacked_adamw
// CHECK: mt.adamw {{.*}} : tensor<2x4xf32>, tensor<8xf32>
// CHECK: mt.adamw {{.*}} {decay} : tensor<2x4x4xf32>, tensor<8xf32>
func.func @stacked(%g: tensor<2x4xf32> {mt.param = #mt.param<name = "g", init = ones>},
                   %w: tensor<2x4x4xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
                   %x: tensor<2x4xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %g0 = mt.slice_layer %g {layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %w0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %h = mt.mul %x, %g0 : tensor<2x4xf32>, tensor<4xf32>
  %y = mt.linear %h, %w0 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
