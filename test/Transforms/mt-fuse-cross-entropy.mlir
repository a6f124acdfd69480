// RUN: mt-opt %s -split-input-file --mt-fuse-cross-entropy | FileCheck %s

// A 16-bit step's loss and gradient: one mt.fused_cross_entropy where the
// gradient was, reading the bf16 logits and writing the bf16 gradient; both
// converts are gone and the gradient's attributes carry over.
// CHECK-LABEL: func.func @bf16_step
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xbf16>, %[[L:.*]]: tensor<2x8xi32>, %[[M:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant
// CHECK-NEXT: %[[LOSS:.*]], %[[G:.*]] = mt.fused_cross_entropy %[[ONE]], %[[X]], %[[L]] mask %[[M]] {mt.backward, num_classes = 30 : i64} : tensor<f32>, tensor<2x8x32xbf16>, tensor<2x8xi32>, tensor<2x8xf32> -> tensor<f32>, tensor<2x8x32xbf16>
// CHECK-NEXT: %[[Y:.*]] = mt.mul %[[G]], %[[X]]
// CHECK-NEXT: return %[[LOSS]], %[[Y]]
func.func @bf16_step(%x: tensor<2x8x32xbf16>, %labels: tensor<2x8xi32>, %m: tensor<2x8xf32>) -> (tensor<f32>, tensor<2x8x32xbf16>) {
  %w = mt.convert %x : tensor<2x8x32xbf16> -> tensor<2x8x32xf32>
  %loss = mt.cross_entropy %w, %labels mask %m {num_classes = 30 : i64} : tensor<2x8x32xf32>, tensor<2x8xi32>, tensor<2x8xf32> -> tensor<f32>
  %one = arith.constant {mt.backward} dense<1.0> : tensor<f32>
  %g = mt.cross_entropy_grad %one, %w, %labels mask %m {mt.backward, num_classes = 30 : i64} : tensor<f32>, tensor<2x8x32xf32>, tensor<2x8xi32>, tensor<2x8xf32> -> tensor<2x8x32xf32>
  %h = mt.convert %g {mt.backward} : tensor<2x8x32xf32> -> tensor<2x8x32xbf16>
  %y = mt.mul %h, %x : tensor<2x8x32xbf16>, tensor<2x8x32xbf16>
  return %loss, %y : tensor<f32>, tensor<2x8x32xbf16>
}

// -----

// fp32 logits: fused, the gradient in the logits' type.
// CHECK-LABEL: func.func @f32_step
// CHECK-SAME: (%[[X:.*]]: tensor<16x32xf32>, %[[L:.*]]: tensor<16xi32>, %[[D:.*]]: tensor<f32>)
// CHECK-NEXT: %[[LOSS:.*]], %[[G:.*]] = mt.fused_cross_entropy %[[D]], %[[X]], %[[L]] : tensor<f32>, tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>, tensor<16x32xf32>
// CHECK-NEXT: return %[[LOSS]], %[[G]]
func.func @f32_step(%x: tensor<16x32xf32>, %labels: tensor<16xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<16x32xf32>) {
  %loss = mt.cross_entropy %x, %labels : tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>
  %g = mt.cross_entropy_grad %d, %x, %labels : tensor<f32>, tensor<16x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  return %loss, %g : tensor<f32>, tensor<16x32xf32>
}

// -----

// The widened logits have another reader, and the gradient is read in f32
// as well as converted: the fused op reads the bf16 logits, writes an f32
// gradient, and the converts that are still read stay.
// CHECK-LABEL: func.func @casts_kept
// CHECK-SAME: (%[[X:.*]]: tensor<16x32xbf16>, %[[L:.*]]: tensor<16xi32>, %[[D:.*]]: tensor<f32>)
// CHECK-NEXT: %[[W:.*]] = mt.convert %[[X]]
// CHECK-NEXT: %[[LOSS:.*]], %[[G:.*]] = mt.fused_cross_entropy %[[D]], %[[X]], %[[L]] : tensor<f32>, tensor<16x32xbf16>, tensor<16xi32> -> tensor<f32>, tensor<16x32xf32>
// CHECK-NEXT: %[[H:.*]] = mt.convert %[[G]]
// CHECK-NEXT: return %[[LOSS]], %[[G]], %[[H]], %[[W]]
func.func @casts_kept(%x: tensor<16x32xbf16>, %labels: tensor<16xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<16x32xbf16>, tensor<16x32xf32>) {
  %w = mt.convert %x : tensor<16x32xbf16> -> tensor<16x32xf32>
  %loss = mt.cross_entropy %w, %labels : tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>
  %g = mt.cross_entropy_grad %d, %w, %labels : tensor<f32>, tensor<16x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  %h = mt.convert %g : tensor<16x32xf32> -> tensor<16x32xbf16>
  return %loss, %g, %h, %w : tensor<f32>, tensor<16x32xf32>, tensor<16x32xbf16>, tensor<16x32xf32>
}

// -----

// The loss is read before its gradient is made (the fused op would come
// too late for that reader): nothing fuses. The lone loss still reads the
// bf16 logits; the gradient keeps reading the widened copy.
// CHECK-LABEL: func.func @loss_read_first
// CHECK-SAME: (%[[X:.*]]: tensor<16x32xbf16>, %[[L:.*]]: tensor<16xi32>, %[[D:.*]]: tensor<f32>)
// CHECK-NEXT: %[[W:.*]] = mt.convert %[[X]]
// CHECK-NEXT: %[[LOSS:.*]] = mt.cross_entropy %[[X]], %[[L]]
// CHECK-NEXT: %[[S:.*]] = mt.add %[[LOSS]], %[[D]]
// CHECK-NEXT: %[[G:.*]] = mt.cross_entropy_grad %[[S]], %[[W]], %[[L]]
// CHECK-NEXT: return %[[G]]
func.func @loss_read_first(%x: tensor<16x32xbf16>, %labels: tensor<16xi32>, %d: tensor<f32>) -> tensor<16x32xf32> {
  %w = mt.convert %x : tensor<16x32xbf16> -> tensor<16x32xf32>
  %loss = mt.cross_entropy %w, %labels : tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>
  %s = mt.add %loss, %d : tensor<f32>, tensor<f32>
  %g = mt.cross_entropy_grad %s, %w, %labels : tensor<f32>, tensor<16x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}

// -----

// Different labels: not the same loss, nothing fuses.
// CHECK-LABEL: func.func @other_labels
// CHECK-NEXT: mt.cross_entropy
// CHECK-NEXT: mt.cross_entropy_grad
// CHECK-NEXT: return
func.func @other_labels(%x: tensor<16x32xf32>, %a: tensor<16xi32>, %b: tensor<16xi32>, %d: tensor<f32>) -> (tensor<f32>, tensor<16x32xf32>) {
  %loss = mt.cross_entropy %x, %a : tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>
  %g = mt.cross_entropy_grad %d, %x, %b : tensor<f32>, tensor<16x32xf32>, tensor<16xi32> -> tensor<16x32xf32>
  return %loss, %g : tensor<f32>, tensor<16x32xf32>
}

// -----

// An evaluation's loss reads its 16-bit logits as they are; a widening to
// f64 would change the loss's type, so it stays.
// CHECK-LABEL: func.func @evaluation
// CHECK-SAME: (%[[X:.*]]: tensor<16x32xbf16>, %[[Y:.*]]: tensor<16x32xf32>, %[[L:.*]]: tensor<16xi32>)
// CHECK-NEXT: %[[A:.*]] = mt.cross_entropy %[[X]], %[[L]] : tensor<16x32xbf16>, tensor<16xi32> -> tensor<f32>
// CHECK-NEXT: %[[W:.*]] = mt.convert %[[Y]]
// CHECK-NEXT: %[[B:.*]] = mt.cross_entropy %[[W]], %[[L]] : tensor<16x32xf64>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @evaluation(%x: tensor<16x32xbf16>, %y: tensor<16x32xf32>, %labels: tensor<16xi32>) -> (tensor<f32>, tensor<f64>) {
  %w = mt.convert %x : tensor<16x32xbf16> -> tensor<16x32xf32>
  %a = mt.cross_entropy %w, %labels : tensor<16x32xf32>, tensor<16xi32> -> tensor<f32>
  %v = mt.convert %y : tensor<16x32xf32> -> tensor<16x32xf64>
  %b = mt.cross_entropy %v, %labels : tensor<16x32xf64>, tensor<16xi32> -> tensor<f64>
  return %a, %b : tensor<f32>, tensor<f64>
}
