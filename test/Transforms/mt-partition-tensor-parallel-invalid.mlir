// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-partition-tensor-parallel="tp=2"

// Models the tensor-parallel partitioning refuses, each with the reason.

// A column-parallel linear whose output features do not split over tp.
func.func @uneven(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w1: tensor<3x8xf32> {mt.param = #mt.param<name = "w1", init = normal, std = 2.0e-02>},
    %w2: tensor<8x3xf32> {mt.param = #mt.param<name = "w2", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): an output segment of size 3 does not split evenly over 2 tensor-parallel ranks; choose a --tp that divides it}}
  %h = mt.linear %x, %w1 : tensor<2x4x8xf32>, tensor<3x8xf32> -> tensor<2x4x3xf32>
  %y = mt.linear %h, %w2 : tensor<2x4x3xf32>, tensor<8x3xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %y, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The vocab-parallel embedding splits a parameter's rows; a computed table
// has none to split.
func.func @table_not_param(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %w: tensor<16x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %t = mt.add %w, %w : tensor<16x8xf32>, tensor<16x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): the embedding table must be a parameter}}
  %x = mt.embedding %t[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %logits = mt.linear %x, %w : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Sizes must be known: the pass runs after mt-specialize-shapes.
// expected-error @+1 {{mt-partition-tensor-parallel: run mt-specialize-shapes first (dynamic sizes)}}
func.func @dynamic(%tokens: tensor<?x4xi32> {mt.batch = "tokens"}, %labels: tensor<?x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x4xi32> -> tensor<?x4x8xf32>
  %logits = mt.linear %x, %wte : tensor<?x4x8xf32>, tensor<16x8xf32> -> tensor<?x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x4x16xf32>, tensor<?x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
