// RUN: mt-opt %s -split-input-file --mt-fuse-add-layer-norm | FileCheck %s

// A residual add whose sum a layer norm reads: one mt.add_layer_norm, at
// the add (the norm's parameters are arguments); the sum's other reader
// reads the fused op's sum; the norm's attributes carry over.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[R:.*]]: tensor<2x8x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[S:.*]], %[[Y:.*]] = mt.add_layer_norm %[[X]], %[[R]], %[[G]], %[[B]] {epsilon = 1.000000e-05 : f64, mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
// CHECK-NEXT: %[[N:.*]] = mt.add %[[S]], %[[Y]]
// CHECK-NEXT: return %[[N]]
func.func @block(%x: tensor<2x8x16xf32>, %r: tensor<2x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x8x16xf32> {
  %s = mt.add %x, %r {mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %y = mt.layer_norm %s, %g, %b {epsilon = 1.0e-05 : f64, mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
  %n = mt.add %s, %y : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %n : tensor<2x8x16xf32>
}

// -----

// The norm's parameters are sliced after the add: the fused op goes where
// the norm was, since the sum's other reader comes after it.
// CHECK-LABEL: func.func @params_after_add
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[R:.*]]: tensor<2x8x16xf32>, %[[GS:.*]]: tensor<2x16xf32>, %[[BS:.*]]: tensor<2x16xf32>)
// CHECK-NEXT: %[[G:.*]] = mt.slice_layer %[[GS]]
// CHECK-NEXT: %[[B:.*]] = mt.slice_layer %[[BS]]
// CHECK-NEXT: %[[S:.*]], %[[Y:.*]] = mt.add_layer_norm %[[X]], %[[R]], %[[G]], %[[B]]
// CHECK-NEXT: %[[N:.*]] = mt.add %[[Y]], %[[S]]
// CHECK-NEXT: return %[[N]]
func.func @params_after_add(%x: tensor<2x8x16xf32>, %r: tensor<2x8x16xf32>, %gs: tensor<2x16xf32>, %bs: tensor<2x16xf32>) -> tensor<2x8x16xf32> {
  %s = mt.add %x, %r : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %g = mt.slice_layer %gs {layer = 1 : i64} : tensor<2x16xf32> -> tensor<16xf32>
  %b = mt.slice_layer %bs {layer = 1 : i64} : tensor<2x16xf32> -> tensor<16xf32>
  %y = mt.layer_norm %s, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %n = mt.add %y, %s : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %n : tensor<2x8x16xf32>
}

// -----

// Not fused: a broadcast add (a bias, not a residual); a sum read before
// the norm whose parameters come after the add; the second norm of one sum;
// a layer's last residual add and the next layer's first norm (the next
// layer would start from two tensors).
// CHECK-LABEL: func.func @kept
// CHECK: %[[E:.*]] = mt.add %{{.*}}, %{{.*}} : tensor<2x8x16xf32>, tensor<8x16xf32>
// CHECK-NEXT: mt.layer_norm %[[E]]
// CHECK: %[[S:.*]] = mt.add %{{.*}}, %{{.*}} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
// CHECK: mt.layer_norm %[[S]]
// CHECK: %[[S2:.*]], %[[Y2:.*]] = mt.add_layer_norm
// CHECK-NEXT: mt.layer_norm %[[S2]]
// CHECK: %[[S3:.*]] = mt.add %{{.*}}, %{{.*}} {mt.layer = 0 : i64}
// CHECK-NEXT: mt.layer_norm %[[S3]]
func.func @kept(%x: tensor<2x8x16xf32>, %pos: tensor<8x16xf32>, %r: tensor<2x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %gs: tensor<2x16xf32>)
    -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %e = mt.add %x, %pos : tensor<2x8x16xf32>, tensor<8x16xf32>
  %ye = mt.layer_norm %e, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %s = mt.add %x, %r : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %early = mt.add %s, %s : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %g1 = mt.slice_layer %gs {layer = 1 : i64} : tensor<2x16xf32> -> tensor<16xf32>
  %y = mt.layer_norm %s, %g1, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %s2 = mt.add %r, %x : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %y2 = mt.layer_norm %s2, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %y3 = mt.layer_norm %s2, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
  %s3 = mt.add %r, %r {mt.layer = 0 : i64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %y4 = mt.layer_norm %s3, %g, %b {epsilon = 1.0e-05 : f64, mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
  return %ye, %early, %y, %y2, %y3, %y4 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
}
