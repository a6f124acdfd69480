// RUN: mt-opt %s -split-input-file -mt-specialize-shapes="micro-batch-size=4 seq-length=8" -verify-diagnostics | FileCheck %s

// Batch and sequence flow from the batch arguments through every op and
// through layer bodies; parameters keep their shapes.
// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[TOK:.*]]: tensor<4x8xi32>, %[[WTE:.*]]: tensor<10x6xf32> {mt.param = {{.*}}}, %[[WPE:.*]]: tensor<16x6xf32> {mt.param = {{.*}}}, %[[G:.*]]: tensor<2x6xf32> {mt.param = {{.*}}}) -> tensor<f32>
// CHECK: %[[E:.*]] = mt.embedding %[[WTE]][%[[TOK]]] : tensor<10x6xf32>, tensor<4x8xi32> -> tensor<4x8x6xf32>
// CHECK: %[[P:.*]] = mt.position_embedding %[[WPE]] for %[[TOK]] : tensor<16x6xf32>, tensor<4x8xi32> -> tensor<8x6xf32>
// CHECK: %[[X:.*]] = mt.add %[[E]], %[[P]] : tensor<4x8x6xf32>, tensor<8x6xf32>
// CHECK: %[[H:.*]] = mt.layer_stack (%[[HID:.*]] = %[[X]] : tensor<4x8x6xf32>) layers (%[[GL:.*]] = %[[G]] : tensor<2x6xf32>) -> tensor<4x8x6xf32>
// CHECK: %[[Q:.*]] = mt.split_heads %[[HID]] {num_heads = 2 : i64} : tensor<4x8x6xf32> -> tensor<4x2x8x3xf32>
// CHECK: %[[S:.*]] = mt.attention_scores %[[Q]], %[[Q]] : tensor<4x2x8x3xf32>, tensor<4x2x8x3xf32> -> tensor<4x2x8x8xf32>
// CHECK: %[[SM:.*]] = mt.softmax %[[S]] {{.*}} : tensor<4x2x8x8xf32>
// CHECK: %[[C:.*]] = mt.attention_context %[[SM]], %[[Q]] : tensor<4x2x8x8xf32>, tensor<4x2x8x3xf32> -> tensor<4x2x8x3xf32>
// CHECK: %[[M:.*]] = mt.merge_heads %[[C]] : tensor<4x2x8x3xf32> -> tensor<4x8x6xf32>
// CHECK: %[[Y:.*]] = mt.mul %[[M]], %[[GL]] : tensor<4x8x6xf32>, tensor<6xf32>
// CHECK: mt.yield %[[Y]] : tensor<4x8x6xf32>
// CHECK: %[[L:.*]] = mt.linear %[[H]], %[[WTE]] : tensor<4x8x6xf32>, tensor<10x6xf32> -> tensor<4x8x10xf32>
// CHECK: mt.cross_entropy %[[L]], %[[TOK]] : tensor<4x8x10xf32>, tensor<4x8xi32> -> tensor<f32>
func.func @model(%tokens: tensor<?x?xi32>,
                 %wte: tensor<10x6xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                 %wpe: tensor<16x6xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>},
                 %g: tensor<2x6xf32> {mt.param = #mt.param<name = "g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<10x6xf32>, tensor<?x?xi32> -> tensor<?x?x6xf32>
  %p = mt.position_embedding %wpe for %tokens : tensor<16x6xf32>, tensor<?x?xi32> -> tensor<?x6xf32>
  %x = mt.add %e, %p : tensor<?x?x6xf32>, tensor<?x6xf32>
  %h = mt.layer_stack (%hid = %x : tensor<?x?x6xf32>) layers (%gl = %g : tensor<2x6xf32>) -> tensor<?x?x6xf32> {
    %q = mt.split_heads %hid {num_heads = 2 : i64} : tensor<?x?x6xf32> -> tensor<?x2x?x3xf32>
    %s = mt.attention_scores %q, %q : tensor<?x2x?x3xf32>, tensor<?x2x?x3xf32> -> tensor<?x2x?x?xf32>
    %sm = mt.softmax %s {mask = #mt<mask causal>} : tensor<?x2x?x?xf32>
    %c = mt.attention_context %sm, %q : tensor<?x2x?x?xf32>, tensor<?x2x?x3xf32> -> tensor<?x2x?x3xf32>
    %m = mt.merge_heads %c : tensor<?x2x?x3xf32> -> tensor<?x?x6xf32>
    %y = mt.mul %m, %gl : tensor<?x?x6xf32>, tensor<6xf32>
    mt.yield %y : tensor<?x?x6xf32>
  }
  %l = mt.linear %h, %wte : tensor<?x?x6xf32>, tensor<10x6xf32> -> tensor<?x?x10xf32>
  %loss = mt.cross_entropy %l, %tokens : tensor<?x?x10xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A chosen size that contradicts a static one is refused.
func.func @contradiction(%tokens: tensor<?x?xi32>, %w: tensor<10x6xf32> {mt.param = #mt.param<name = "w", init = zeros>}) -> tensor<f32> {
  // expected-error @+1 {{mt-specialize-shapes: the chosen sizes make this result 'tensor<4x8x6xf32>', which contradicts its declared type 'tensor<4x5x6xf32>'}}
  %e = mt.embedding %w[%tokens] : tensor<10x6xf32>, tensor<?x?xi32> -> tensor<4x5x6xf32>
  %l = mt.linear %e, %w : tensor<4x5x6xf32>, tensor<10x6xf32> -> tensor<4x5x10xf32>
  %loss = mt.cross_entropy %l, %tokens : tensor<4x5x10xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
