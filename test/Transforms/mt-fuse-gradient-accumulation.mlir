// RUN: mt-opt %s -split-input-file --mt-fuse-gradient-accumulation | FileCheck %s

// A stacked weight's gradient: each layer's weight-gradient GEMM
// accumulates into that layer's slice of the accumulator, in program order,
// and the stack is gone. The result is the updated accumulator, in place of
// the new last argument.
// CHECK-LABEL: func.func @stacked
// CHECK-SAME: (%[[X0:.*]]: tensor<8x4xf32>, %[[X1:.*]]: tensor<8x4xf32>, %[[DY:.*]]: tensor<8x4xf32>, %[[ACC:.*]]: tensor<2x4x4xf32> {mt.accumulator_of = "w"})
// CHECK-SAME: -> (tensor<2x4x4xf32> {mt.grad_of = "w", mt.in_place_of = 3 : i64})
// CHECK-NEXT: %[[S1:.*]] = mt.slice_layer %[[ACC]] {layer = 1 : i64, mt.backward, mt.layer = 1 : i64}
// CHECK-NEXT: %[[D1:.*]] = mt.matmul %[[X1]], %[[DY]] plus %[[S1]] : tensor<4x4xf32> {mt.backward, mt.layer = 1 : i64, transpose_lhs}
// CHECK-NEXT: %[[A1:.*]] = mt.insert_layer %[[D1]] into %[[ACC]] {layer = 1 : i64, mt.backward, mt.layer = 1 : i64}
// CHECK-NEXT: %[[S0:.*]] = mt.slice_layer %[[A1]] {layer = 0 : i64, mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[D0:.*]] = mt.matmul %[[X0]], %[[DY]] plus %[[S0]]
// CHECK-NEXT: %[[A0:.*]] = mt.insert_layer %[[D0]] into %[[A1]] {layer = 0 : i64
// CHECK-NEXT: return %[[A0]]
func.func @stacked(%x0: tensor<8x4xf32>, %x1: tensor<8x4xf32>, %dy: tensor<8x4xf32>)
    -> (tensor<2x4x4xf32> {mt.grad_of = "w"}) {
  %d1 = mt.matmul %x1, %dy {mt.backward, mt.layer = 1 : i64, transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %d0 = mt.matmul %x0, %dy {mt.backward, mt.layer = 0 : i64, transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %dw = mt.stack_layers %d0, %d1 {mt.backward} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  return %dw : tensor<2x4x4xf32>
}

// -----

// A tied weight: the sum of the LM head's GEMM and the embedding's
// scatter-add becomes both accumulating, one after the other; a bias's
// reduction goes through mt.accumulate; a zero gradient adds nothing. The
// loss keeps its place; other results are untouched.
// CHECK-LABEL: func.func @tied
// CHECK-SAME: %[[ACCW:[^:]*]]: tensor<16x4xf32> {mt.accumulator_of = "wte"}, %[[ACCB:[^:]*]]: tensor<4xf32> {mt.accumulator_of = "b"}, %[[ACCZ:[^:]*]]: tensor<4xf32> {mt.accumulator_of = "unused"})
// CHECK-SAME: -> (tensor<f32>, tensor<16x4xf32> {mt.grad_of = "wte", mt.in_place_of = 3 : i64}, tensor<4xf32> {mt.grad_of = "b", mt.in_place_of = 4 : i64}, tensor<4xf32> {mt.grad_of = "unused", mt.in_place_of = 5 : i64})
// CHECK-NEXT: %[[HEAD:.*]] = mt.matmul %{{.*}}, %{{.*}} plus %[[ACCW]] : tensor<16x4xf32> {mt.backward, transpose_lhs}
// CHECK-NEXT: %[[DB:.*]] = mt.sum_to
// CHECK-NEXT: %[[B:.*]] = mt.accumulate %[[DB]] into %[[ACCB]] {mt.backward}
// CHECK-NEXT: %[[EMB:.*]] = mt.embedding_grad %{{.*}}[%{{.*}}] plus %[[HEAD]] : tensor<16x4xf32> {mt.backward}
// CHECK-NEXT: %[[L:.*]] = mt.zeros
// CHECK-NEXT: return %[[L]], %[[EMB]], %[[B]], %[[ACCZ]]
func.func @tied(%h: tensor<8x4xf32>, %dlogits: tensor<8x16xf32>, %ids: tensor<8xi32>)
    -> (tensor<f32>, tensor<16x4xf32> {mt.grad_of = "wte"}, tensor<4xf32> {mt.grad_of = "b"},
        tensor<4xf32> {mt.grad_of = "unused"}) {
  %head = mt.matmul %dlogits, %h {mt.backward, transpose_lhs} : tensor<8x16xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %db = mt.sum_to %h {mt.backward} : tensor<8x4xf32> -> tensor<4xf32>
  %emb = mt.embedding_grad %h[%ids] {mt.backward} : tensor<8x4xf32>, tensor<8xi32> -> tensor<16x4xf32>
  %dw = mt.add %head, %emb {mt.backward} : tensor<16x4xf32>, tensor<16x4xf32>
  %loss = mt.zeros : tensor<f32>
  %z = mt.zeros : tensor<4xf32>
  return %loss, %dw, %db, %z : tensor<f32>, tensor<16x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A gradient that is read elsewhere too is not fused into its producer: it
// is added with mt.accumulate, and the GEMM keeps its result.
// CHECK-LABEL: func.func @shared
// CHECK: %[[D:.*]] = mt.matmul %{{[^ ]*}}, %{{[^ ]*}} {transpose_lhs}
// CHECK-NEXT: %[[A:.*]] = mt.accumulate %[[D]] into %{{.*}} {mt.backward}
// CHECK-NEXT: return %[[A]], %[[D]]
func.func @shared(%x: tensor<8x4xf32>, %dy: tensor<8x4xf32>)
    -> (tensor<4x4xf32> {mt.grad_of = "w"}, tensor<4x4xf32>) {
  %d = mt.matmul %x, %dy {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return %d, %d : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A function without gradient results is left alone.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Mixed precision: a bf16 weight-gradient GEMM widened for its fp32
// accumulator becomes one GEMM of the bf16 operands writing fp32 into the
// accumulator (never rounded to bf16); a bias gradient's convert stays and
// is added by mt.accumulate.
// CHECK-LABEL: func.func @widened
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xbf16>, %[[DY:.*]]: tensor<8x4xbf16>, %[[DB:.*]]: tensor<4xbf16>, %[[ACCW:.*]]: tensor<4x4xf32> {mt.accumulator_of = "w"}, %[[ACCB:.*]]: tensor<4xf32> {mt.accumulator_of = "b"})
// CHECK-NOT: mt.convert %{{.*}} : tensor<4x4xbf16>
// CHECK: %[[DW:.*]] = mt.matmul %[[X]], %[[DY]] plus %[[ACCW]] : tensor<4x4xf32> {mt.backward, transpose_lhs} : tensor<8x4xbf16>, tensor<8x4xbf16> -> tensor<4x4xf32>
// CHECK: %[[DB32:.*]] = mt.convert %[[DB]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK: %[[B:.*]] = mt.accumulate %[[DB32]] into %[[ACCB]]
// CHECK: return %[[DW]], %[[B]]
func.func @widened(%x: tensor<8x4xbf16>, %dy: tensor<8x4xbf16>, %db: tensor<4xbf16>)
    -> (tensor<4x4xf32> {mt.grad_of = "w"}, tensor<4xf32> {mt.grad_of = "b"}) {
  %d16 = mt.matmul %x, %dy {mt.backward, transpose_lhs} : tensor<8x4xbf16>, tensor<8x4xbf16> -> tensor<4x4xbf16>
  %dw = mt.convert %d16 : tensor<4x4xbf16> -> tensor<4x4xf32>
  %db32 = mt.convert %db : tensor<4xbf16> -> tensor<4xf32>
  return %dw, %db32 : tensor<4x4xf32>, tensor<4xf32>
}
