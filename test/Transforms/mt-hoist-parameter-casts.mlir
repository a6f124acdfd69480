// RUN: mt-opt %s -split-input-file --mt-hoist-parameter-casts | FileCheck %s

// Two layers' casts of a stacked parameter's slices: the stack is cast once
// at the start, each layer slices the cast; the slices carry no layer mark.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<2x8xf32>, %[[X:.*]]: tensor<8xbf16>)
// CHECK-NEXT: %[[ALL:.*]] = mt.convert %[[W]] : tensor<2x8xf32> -> tensor<2x8xbf16>
// CHECK-NOT: mt.convert
// CHECK: %[[W0:.*]] = mt.slice_layer %[[ALL]] {layer = 0 : i64} : tensor<2x8xbf16> -> tensor<8xbf16>
// CHECK: %[[A:.*]] = mt.add %[[X]], %[[W0]] {mt.layer = 0 : i64}
// CHECK: %[[W1:.*]] = mt.slice_layer %[[ALL]] {layer = 1 : i64} : tensor<2x8xbf16> -> tensor<8xbf16>
// CHECK: mt.add %[[A]], %[[W1]] {mt.layer = 1 : i64}
func.func @step(%w: tensor<2x8xf32>, %x: tensor<8xbf16>) -> tensor<8xbf16> {
  %s0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x8xf32> -> tensor<8xf32>
  %c0 = mt.convert %s0 {mt.layer = 0 : i64} : tensor<8xf32> -> tensor<8xbf16>
  %a = mt.add %x, %c0 {mt.layer = 0 : i64} : tensor<8xbf16>, tensor<8xbf16>
  %s1 = mt.slice_layer %w {layer = 1 : i64} : tensor<2x8xf32> -> tensor<8xf32>
  %c1 = mt.convert %s1 {mt.layer = 1 : i64} : tensor<8xf32> -> tensor<8xbf16>
  %b = mt.add %a, %c1 {mt.layer = 1 : i64} : tensor<8xbf16>, tensor<8xbf16>
  return %b : tensor<8xbf16>
}

// -----

// A slice that is also read in f32 stays; a cast of something other than a
// slice of an argument stays where it is.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[W:.*]]: tensor<2x8xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK: %[[ALL:.*]] = mt.convert %[[W]]
// CHECK: %[[S0:.*]] = mt.slice_layer %[[W]] {layer = 0 : i64}
// CHECK: mt.slice_layer %[[ALL]] {layer = 0 : i64}
// CHECK: mt.add %[[S0]], %[[Y]]
// CHECK: mt.convert %[[Y]] : tensor<8xf32> -> tensor<8xbf16>
func.func @kept(%w: tensor<2x8xf32>, %y: tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>) {
  %s0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x8xf32> -> tensor<8xf32>
  %c0 = mt.convert %s0 : tensor<8xf32> -> tensor<8xbf16>
  %f = mt.add %s0, %y : tensor<8xf32>, tensor<8xf32>
  %cy = mt.convert %y : tensor<8xf32> -> tensor<8xbf16>
  return %c0, %f, %cy : tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>
}
