// RUN: mt-opt %s -split-input-file -mt-pad-vocab=multiple=8 -verify-diagnostics | FileCheck %s
// RUN: mt-opt %s -split-input-file -mt-pad-vocab | FileCheck %s --check-prefix=NOPAD
// RUN: not mt-opt %s -mt-pad-vocab=multiple=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: mt-pad-vocab: multiple must be >= 1, got 0

// A tied head: the table grows to 16 rows, the logits to 16 classes, and the
// loss ignores the 6 padded ones. The table records its 10 real rows
// (checkpoints drop or add the padding by it).
// CHECK-LABEL: func.func @tied
// CHECK-SAME: (%[[WTE:.*]]: tensor<16x4xf32> {mt.param = {{.*}}, mt.unpadded_rows = 10 : i64}, %[[TOK:.*]]: tensor<2x3xi32>, %[[LAB:.*]]: tensor<2x3xi32>) -> tensor<f32>
// CHECK-NEXT: %[[E:.*]] = mt.embedding %[[WTE]][%[[TOK]]] : tensor<16x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[LOGITS:.*]] = mt.linear %[[E]], %[[WTE]] : tensor<2x3x4xf32>, tensor<16x4xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mt.cross_entropy %[[LOGITS]], %[[LAB]] {num_classes = 10 : i64} : tensor<2x3x16xf32>, tensor<2x3xi32> -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]]
// NOPAD-LABEL: func.func @tied
// NOPAD: mt.embedding %{{.*}}[%{{.*}}] : tensor<10x4xf32>
// NOPAD-NOT: num_classes
func.func @tied(%wte: tensor<10x4xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                %tokens: tensor<2x3xi32>, %labels: tensor<2x3xi32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %logits = mt.linear %e, %wte : tensor<2x3x4xf32>, tensor<10x4xf32> -> tensor<2x3x10xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Already a multiple, and a table that is not a vocabulary (positions): untouched.
// CHECK-LABEL: func.func @aligned
// CHECK-SAME: tensor<16x4xf32>
// CHECK-SAME: tensor<3x4xf32>
func.func @aligned(%wte: tensor<16x4xf32> {mt.param = #mt.param<name = "wte", init = zeros>},
                   %wpe: tensor<3x4xf32> {mt.param = #mt.param<name = "wpe", init = zeros>},
                   %tokens: tensor<2x3xi32>, %labels: tensor<2x3xi32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %p = mt.position_embedding %wpe for %tokens : tensor<3x4xf32>, tensor<2x3xi32> -> tensor<3x4xf32>
  %s = mt.add %e, %p : tensor<2x3x4xf32>, tensor<3x4xf32>
  %logits = mt.linear %s, %wte : tensor<2x3x4xf32>, tensor<16x4xf32> -> tensor<2x3x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x3x16xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A use of the table the pass cannot pad through is refused, not mis-padded.
func.func @unknown_use(%wte: tensor<10x4xf32> {mt.param = #mt.param<name = "wte", init = zeros>},
                       %tokens: tensor<2x3xi32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  // expected-error @+1 {{mt-pad-vocab: cannot pad the vocabulary through this use of the embedding table}}
  %t = mt.matmul %wte, %wte {transpose_rhs} : tensor<10x4xf32>, tensor<10x4xf32> -> tensor<10x10xf32>
  %w = mt.gelu %e approximate = none : tensor<2x3x4xf32>
  %x = mt.linear %w, %wte : tensor<2x3x4xf32>, tensor<10x4xf32> -> tensor<2x3x10xf32>
  %loss = mt.cross_entropy %x, %tokens : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An untied output layer (Llama's lm_head) of the vocabulary's rows grows
// with the table, records its real rows too, and its logits' loss ignores
// the padded classes.
// CHECK-LABEL: func.func @untied
// CHECK-SAME: (%[[TABLE:.*]]: tensor<16x4xf32> {mt.param = {{.*}}, mt.unpadded_rows = 10 : i64}, %[[HEAD:.*]]: tensor<16x4xf32> {mt.param = {{.*}}, mt.unpadded_rows = 10 : i64}, %[[TOK:.*]]: tensor<2x3xi32>, %[[LAB:.*]]: tensor<2x3xi32>)
// CHECK-NEXT: %[[E:.*]] = mt.embedding %[[TABLE]][%[[TOK]]] : tensor<16x4xf32>
// CHECK-NEXT: %[[LOGITS:.*]] = mt.linear %[[E]], %[[HEAD]] : tensor<2x3x4xf32>, tensor<16x4xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mt.cross_entropy %[[LOGITS]], %[[LAB]] {num_classes = 10 : i64}
// CHECK-NEXT: return %[[LOSS]]
func.func @untied(%embed: tensor<10x4xf32> {mt.param = #mt.param<name = "embed_tokens.weight", init = zeros>},
                  %lm_head: tensor<10x4xf32> {mt.param = #mt.param<name = "lm_head.weight", init = zeros>},
                  %tokens: tensor<2x3xi32>, %labels: tensor<2x3xi32>) -> tensor<f32> {
  %e = mt.embedding %embed[%tokens] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %logits = mt.linear %e, %lm_head : tensor<2x3x4xf32>, tensor<10x4xf32> -> tensor<2x3x10xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// BERT's head: a bias of its own grows with it, and the masked-LM accuracy
// beside the loss ignores the padded classes as the loss does.
// CHECK-LABEL: func.func @accuracy
// CHECK: %[[LOGITS:.*]] = mt.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<16x4xf32>, tensor<16xf32> -> tensor<2x3x16xf32>
// CHECK-NEXT: mt.cross_entropy %[[LOGITS]], %{{.*}} {num_classes = 10 : i64}
// CHECK-NEXT: mt.accuracy %[[LOGITS]], %{{.*}} {num_classes = 10 : i64}
func.func @accuracy(%wte: tensor<10x4xf32> {mt.param = #mt.param<name = "wte", init = zeros>},
                    %bias: tensor<10xf32> {mt.param = #mt.param<name = "bias", init = zeros>},
                    %tokens: tensor<2x3xi32>, %labels: tensor<2x3xi32>) -> (tensor<f32>, tensor<f32>) {
  %e = mt.embedding %wte[%tokens] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %logits = mt.linear %e, %wte, %bias : tensor<2x3x4xf32>, tensor<10x4xf32>, tensor<10xf32> -> tensor<2x3x10xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  %acc = mt.accuracy %logits, %labels : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss, %acc : tensor<f32>, tensor<f32>
}
