// RUN: mt-opt %s -split-input-file --mt-fuse-bias-gelu | FileCheck %s

// A biased linear read only by a GeLU: the bias moves into mt.bias_gelu,
// attributes carry over.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[W:.*]]: tensor<64x16xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[H:.*]] = mt.linear %[[X]], %[[W]] {mt.layer = 3 : i64} : tensor<2x8x16xf32>, tensor<64x16xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT: %[[Y:.*]] = mt.bias_gelu %[[H]], %[[B]] approximate = tanh {mt.layer = 3 : i64} : tensor<2x8x64xf32>, tensor<64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mlp(%x: tensor<2x8x16xf32>, %w: tensor<64x16xf32>, %b: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %h = mt.linear %x, %w, %b {mt.layer = 3 : i64} : tensor<2x8x16xf32>, tensor<64x16xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
  %y = mt.gelu %h approximate = tanh {mt.layer = 3 : i64} : tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// Not fused: the biased sum has another reader, or there is no bias.
// CHECK-LABEL: func.func @kept
// CHECK: mt.linear %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK: mt.gelu
// CHECK: mt.linear %{{.*}}, %{{.*}} :
// CHECK: mt.gelu
// CHECK-NOT: mt.bias_gelu
func.func @kept(%x: tensor<2x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %h = mt.linear %x, %w, %b : tensor<2x16xf32>, tensor<8x16xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %y = mt.gelu %h approximate = none : tensor<2x8xf32>
  %h2 = mt.linear %x, %w : tensor<2x16xf32>, tensor<8x16xf32> -> tensor<2x8xf32>
  %y2 = mt.gelu %h2 approximate = none : tensor<2x8xf32>
  return %h, %y, %y2 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Inside a layer stack's body too.
// CHECK-LABEL: func.func @stacked
// CHECK: mt.layer_stack
// CHECK: mt.linear %{{.*}}, %{{.*}} :
// CHECK-NEXT: mt.bias_gelu
func.func @stacked(%x: tensor<2x4xf32>, %w: tensor<2x4x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %h = mt.layer_stack (%hid = %x : tensor<2x4xf32>) layers (%wl = %w : tensor<2x4x4xf32>, %bl = %b : tensor<2x4xf32>) -> tensor<2x4xf32> {
    %l = mt.linear %hid, %wl, %bl : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
    %g = mt.gelu %l approximate = tanh : tensor<2x4xf32>
    mt.yield %g : tensor<2x4xf32>
  }
  return %h : tensor<2x4xf32>
}
