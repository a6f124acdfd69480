// RUN: mt-opt %s -split-input-file --mt-fuse-bias-dropout-add | FileCheck %s

// A biased linear, its dropout and the residual add: one op with the
// dropout's key; attributes carry over.
// CHECK-LABEL: func.func @attention_out
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x16xf32>, %[[W:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<2x8x16xf32>, %[[S:.*]]: tensor<i64>)
// CHECK-NEXT: %[[H:.*]] = mt.linear %[[A]], %[[W]] {mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<16x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[Y:.*]] = mt.bias_dropout_add %[[H]], %[[B]], %[[X]] seed %[[S]] : tensor<i64> {layer = 1 : i64, mt.layer = 1 : i64, rate = 1.000000e-01 : f64, stream = 2 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @attention_out(%a: tensor<2x8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %x: tensor<2x8x16xf32>, %s: tensor<i64>) -> tensor<2x8x16xf32> {
  %h = mt.linear %a, %w, %b {mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  %d = mt.dropout %h seed %s : tensor<i64> {layer = 1 : i64, mt.layer = 1 : i64, rate = 0.1 : f64, stream = 2 : i64} : tensor<2x8x16xf32>
  %y = mt.add %x, %d {mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// Under tensor parallelism the bias is added after the row-parallel
// reduction, and the dropout of a sequence piece carries its shard.
// CHECK-LABEL: func.func @sequence_piece
// CHECK-SAME: (%[[P:.*]]: tensor<2x4x16xf32>, %[[B:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<2x4x16xf32>, %[[I:.*]]: tensor<i64>)
// CHECK-NEXT: %[[Y:.*]] = mt.bias_dropout_add %[[P]], %[[B]], %[[X]] shard %[[I]] : tensor<i64> {rate = 1.000000e-01 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 3 : i64} : tensor<2x4x16xf32>, tensor<16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @sequence_piece(%p: tensor<2x4x16xf32>, %b: tensor<16xf32>, %x: tensor<2x4x16xf32>, %i: tensor<i64>) -> tensor<2x4x16xf32> {
  %h = mt.add %p, %b : tensor<2x4x16xf32>, tensor<16xf32>
  %d = mt.dropout %h shard %i : tensor<i64> {rate = 0.1 : f64, stream = 3 : i64, shard_dim = 1 : i64, shard_parts = 2 : i64} : tensor<2x4x16xf32>
  %y = mt.add %d, %x : tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Not fused: the dropout's input has another reader, or the add's other
// operand is broadcast, or there is no bias.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: mt.bias_dropout_add
func.func @kept(%a: tensor<2x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>) {
  %h = mt.linear %a, %w, %b : tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %d = mt.dropout %h {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x16xf32>
  %y = mt.add %x, %d : tensor<2x16xf32>, tensor<2x16xf32>
  %h2 = mt.linear %a, %w, %b : tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %d2 = mt.dropout %h2 {rate = 0.1 : f64, stream = 1 : i64} : tensor<2x16xf32>
  %y2 = mt.add %d2, %b : tensor<2x16xf32>, tensor<16xf32>
  %h3 = mt.linear %a, %w : tensor<2x16xf32>, tensor<16x16xf32> -> tensor<2x16xf32>
  %d3 = mt.dropout %h3 {rate = 0.1 : f64, stream = 2 : i64} : tensor<2x16xf32>
  %y3 = mt.add %x, %d3 : tensor<2x16xf32>, tensor<2x16xf32>
  return %h, %y, %y2, %y3 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

// Two sublayers in a row: the second's residual is the first's sum, which
// the first fusion replaces.
// CHECK-LABEL: func.func @two_sublayers
// CHECK-SAME: (%[[X:.*]]: tensor<2x16xf32>, %[[W:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[H1:.*]] = mt.linear %[[X]], %[[W]] :
// CHECK-NEXT: %[[Y1:.*]] = mt.bias_dropout_add %[[H1]], %[[B]], %[[X]] {rate = 1.000000e-01 : f64, stream = 0 : i64}
// CHECK-NEXT: %[[H2:.*]] = mt.linear %[[Y1]], %[[W]] :
// CHECK-NEXT: %[[Y2:.*]] = mt.bias_dropout_add %[[H2]], %[[B]], %[[Y1]] {rate = 1.000000e-01 : f64, stream = 1 : i64}
// CHECK-NEXT: return %[[Y2]]
func.func @two_sublayers(%x: tensor<2x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<2x16xf32> {
  %h1 = mt.linear %x, %w, %b : tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %d1 = mt.dropout %h1 {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x16xf32>
  %y1 = mt.add %x, %d1 : tensor<2x16xf32>, tensor<2x16xf32>
  %h2 = mt.linear %y1, %w, %b : tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  %d2 = mt.dropout %h2 {rate = 0.1 : f64, stream = 1 : i64} : tensor<2x16xf32>
  %y2 = mt.add %y1, %d2 : tensor<2x16xf32>, tensor<2x16xf32>
  return %y2 : tensor<2x16xf32>
}
