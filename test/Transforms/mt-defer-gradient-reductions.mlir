// RUN: mt-opt %s --mt-defer-gradient-reductions | FileCheck %s

// Sequence parallelism: the norm's scale gets one all-reduce per layer from
// mt.vary's VJP. Its gradient is built from those all-reduces by add and
// stack_layers only, so they go, and the result is marked as a partial sum
// the runtime completes once per step. The loss's all-reduce stays.
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @m_grad
// CHECK-SAME: (%[[L:.*]]: tensor<f32>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>, %[[E:.*]]: tensor<4xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32> {mt.grad_of = "ln.w", mt.partial_over = ["tp"]}, tensor<4xf32> {mt.grad_of = "b"}, tensor<4xf32> {mt.grad_of = "c"})
// CHECK-NEXT: %[[LOSS:.*]] = mt.all_reduce %[[L]] on @mesh axes = ["tp"] reduction = sum : tensor<f32>
// CHECK-NEXT: %[[L0:.*]] = mt.add %[[A]], %[[B]] :
// CHECK-NEXT: %[[S:.*]] = mt.stack_layers %[[L0]], %[[C]] :
// CHECK-NEXT: %[[RD:.*]] = mt.all_reduce %[[D]] on @mesh axes = ["tp"] reduction = sum
// CHECK-NEXT: %[[BB:.*]] = mt.add %[[RD]], %[[D]]
// CHECK-NEXT: %[[RE:.*]] = mt.all_reduce %[[E]] on @mesh axes = ["tp"] reduction = max
// CHECK-NEXT: return %[[LOSS]], %[[S]], %[[BB]], %[[RE]]
func.func @m_grad(%l: tensor<f32>, %a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %e: tensor<4xf32>)
    -> (tensor<f32>, tensor<2x4xf32> {mt.grad_of = "ln.w"}, tensor<4xf32> {mt.grad_of = "b"}, tensor<4xf32> {mt.grad_of = "c"})
    attributes {mt.gradient_of = @m} {
  %loss = mt.all_reduce %l on @mesh axes = ["tp"] reduction = sum : tensor<f32>
  %ra = mt.all_reduce %a on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %rb = mt.all_reduce %b on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %l0 = mt.add %ra, %rb : tensor<4xf32>, tensor<4xf32>
  %rc = mt.all_reduce %c on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %s = mt.stack_layers %l0, %rc : tensor<4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  // A replicated addend: deferring would count it once per rank.
  %rd = mt.all_reduce %d on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %bb = mt.add %rd, %d : tensor<4xf32>, tensor<4xf32>
  // Only sums commute with accumulation.
  %re = mt.all_reduce %e on @mesh axes = ["tp"] reduction = max : tensor<4xf32>
  return %loss, %s, %bb, %re : tensor<f32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}
