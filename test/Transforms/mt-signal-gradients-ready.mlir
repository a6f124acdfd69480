// RUN: mt-opt %s -mt-signal-gradients-ready | FileCheck %s

// A stacked accumulator written layer by layer (the last layer first) is
// final a layer at a time; a plain one after its last write. Signals are
// numbered in the order the step reaches them.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[DW1:.*]]: tensor<4xf32>, %[[DW0:.*]]: tensor<4xf32>, %[[DB:.*]]: tensor<4xf32>, %[[ACC:.*]]: tensor<2x4xf32> {mt.accumulator_of = "h.w"}, %[[BACC:.*]]: tensor<4xf32> {mt.accumulator_of = "b"})
// CHECK: %[[A1:.*]] = mt.insert_layer %[[DW1]] into %[[ACC]] {layer = 1 : i64}
// CHECK-NEXT: mt.gradient_ready %[[A1]] {accumulator = 3 : i64, index = 0 : i64, layer = 1 : i64, mt.backward} : tensor<2x4xf32>
// CHECK-NEXT: %[[B:.*]] = mt.accumulate %[[DB]] into %[[BACC]]
// CHECK-NEXT: mt.gradient_ready %[[B]] {accumulator = 4 : i64, index = 1 : i64, mt.backward} : tensor<4xf32>
// CHECK-NEXT: %[[A0:.*]] = mt.insert_layer %[[DW0]] into %[[A1]] {layer = 0 : i64}
// CHECK-NEXT: mt.gradient_ready %[[A0]] {accumulator = 3 : i64, index = 2 : i64, layer = 0 : i64, mt.backward} : tensor<2x4xf32>
// CHECK-NEXT: return %[[A0]], %[[B]]
func.func @step(%dw1: tensor<4xf32>, %dw0: tensor<4xf32>, %db: tensor<4xf32>,
                %acc: tensor<2x4xf32> {mt.accumulator_of = "h.w"}, %bacc: tensor<4xf32> {mt.accumulator_of = "b"})
    -> (tensor<2x4xf32> {mt.grad_of = "h.w", mt.in_place_of = 3 : i64}, tensor<4xf32> {mt.grad_of = "b", mt.in_place_of = 4 : i64})
    attributes {mt.role = #mt<role train_step>} {
  %a1 = mt.insert_layer %dw1 into %acc {layer = 1 : i64} : tensor<4xf32> into tensor<2x4xf32>
  %b = mt.accumulate %db into %bacc : tensor<4xf32>
  %a0 = mt.insert_layer %dw0 into %a1 {layer = 0 : i64} : tensor<4xf32> into tensor<2x4xf32>
  return %a0, %b : tensor<2x4xf32>, tensor<4xf32>
}

// A write of the whole after a layer's: the layer is not final at its
// insert; the accumulator is final, as a whole, after the last write.
// CHECK-LABEL: func.func @whole_last
// CHECK: mt.insert_layer
// CHECK-NEXT: %[[W:.*]] = mt.accumulate
// CHECK-NEXT: mt.gradient_ready %[[W]] {accumulator = 1 : i64, index = 0 : i64, mt.backward} : tensor<2x4xf32>
// CHECK-NOT: mt.gradient_ready
func.func @whole_last(%dw: tensor<4xf32>, %acc: tensor<2x4xf32> {mt.accumulator_of = "h.w"}, %d: tensor<2x4xf32>)
    -> (tensor<2x4xf32> {mt.grad_of = "h.w", mt.in_place_of = 1 : i64})
    attributes {mt.role = #mt<role train_step>} {
  %a = mt.insert_layer %dw into %acc {layer = 1 : i64} : tensor<4xf32> into tensor<2x4xf32>
  %w = mt.accumulate %d into %a : tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// Only training steps are signalled.
// CHECK-LABEL: func.func @optimizer
// CHECK-NOT: mt.gradient_ready
func.func @optimizer(%db: tensor<4xf32>, %bacc: tensor<4xf32>) -> (tensor<4xf32> {mt.in_place_of = 1 : i64})
    attributes {mt.role = #mt<role optimizer>} {
  %b = mt.accumulate %db into %bacc : tensor<4xf32>
  return %b : tensor<4xf32>
}
