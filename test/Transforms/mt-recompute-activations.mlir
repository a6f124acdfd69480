// RUN: mt-opt %s --mt-recompute-activations=all-gathers=true | FileCheck %s
// RUN: mt-opt %s --mt-recompute-activations | FileCheck %s --check-prefix=OFF

// The gathered input of a column-parallel linear is read by the backward's
// weight gradient. The pass gathers again right before that read, so the
// forward's gathered tensor dies in the forward and only the piece is kept.
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @m_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>, %[[DY:.*]]: tensor<2x8x4xf32>)
// CHECK-NEXT: %[[G:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = mt.linear %[[G]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = mt.reshape %[[DY]] {mt.backward}
// CHECK-NEXT: %[[G2:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 {mt.backward} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[B:.*]] = mt.reshape %[[G2]] {mt.backward}
// CHECK-NEXT: %[[DW:.*]] = mt.matmul %[[A]], %[[B]] {mt.backward, transpose_lhs}
// CHECK-NEXT: return %[[Y]], %[[DW]]
// OFF-LABEL: func.func @m_grad
// OFF-COUNT-1: mt.all_gather
// OFF-NOT: mt.all_gather
func.func @m_grad(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>, %dy: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<4x8xf32>) attributes {mt.gradient_of = @m} {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %y = mt.linear %g, %w : tensor<2x8x8xf32>, tensor<4x8xf32> -> tensor<2x8x4xf32>
  %a = mt.reshape %dy {mt.backward} : tensor<2x8x4xf32> -> tensor<16x4xf32>
  %b = mt.reshape %g {mt.backward} : tensor<2x8x8xf32> -> tensor<16x8xf32>
  %dw = mt.matmul %a, %b {mt.backward, transpose_lhs} : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y, %dw : tensor<2x8x4xf32>, tensor<4x8xf32>
}
