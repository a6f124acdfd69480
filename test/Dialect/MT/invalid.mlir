// Every numbered constraint the mt verifiers enforce, one invalid case each.
// Each case names the constraint it breaks and checks that the diagnostic
// cites that constraint's number.
// RUN: mt-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// #mt.buffer
//===----------------------------------------------------------------------===//

// #mt.buffer C1: hyper belongs to no parameter
// expected-error @+1 {{#mt.buffer violates C1: hyper belongs to no parameter}}
func.func @buffer_c1_hyper_of_param(%h: tensor<8xf32> {mt.buffer = #mt.buffer<hyper, "w">}) {
  return
}

// -----

// #mt.buffer C2: a parameter's buffer names it
// expected-error @+1 {{#mt.buffer violates C2: the exp_avg buffer names its parameter}}
func.func @buffer_c2_no_param(%m: tensor<4xf32> {mt.buffer = #mt.buffer<exp_avg>}) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// #mt.param
//===----------------------------------------------------------------------===//

// #mt.param C1: the parameter name is empty
// expected-error @+1 {{#mt.param violates C1: the parameter name is empty}}
func.func @param_c1_empty_name(%w: tensor<4xf32> {mt.param = #mt.param<name = "", init = zeros>}) {
  return
}

// -----

// #mt.param C2: a normal initializer with the default std of 0
// expected-error @+1 {{#mt.param violates C2: std must be positive for a normal initializer}}
func.func @param_c2_normal_zero_std(%w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = normal>}) {
  return
}

// -----

// #mt.param C2: a negative std, even for a zeros initializer
// expected-error @+1 {{#mt.param violates C2: std must be positive for a normal initializer and never negative, got -1}}
func.func @param_c2_negative_std(%w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = zeros, std = -1.0>}) {
  return
}

//===----------------------------------------------------------------------===//
// #mt.sharding
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// #mt.sharding C1: a mesh axis splits two dimensions
func.func @sharding_c1_repeated_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{#mt.sharding violates C1: mesh axis 'tp' is used more than once}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [tp, tp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// #mt.sharding C1: a mesh axis both splits a dimension and holds partial sums
func.func @sharding_c1_axis_split_and_partial(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{#mt.sharding violates C1: mesh axis 'tp' is used more than once}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [_, tp], partial = [tp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// #mt.sharding C2: an empty mesh axis name
func.func @sharding_c2_empty_axis_name(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{#mt.sharding violates C2: mesh axes are non-empty names}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [_, ""]>
  return %s : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.mesh
//===----------------------------------------------------------------------===//

// -----

// mt.mesh C1: fewer sizes than axes
// expected-error @+1 {{violates C1: expected one size per axis and at least one axis, got 2 axes and 1 sizes}}
mt.mesh @mesh_c1_size_count axes = ["dp", "tp"] shape = [2]

// -----

// mt.mesh C1: no axis at all
// expected-error @+1 {{violates C1: expected one size per axis and at least one axis, got 0 axes and 0 sizes}}
mt.mesh @mesh_c1_no_axes axes = [] shape = []

// -----

// mt.mesh C2: an axis name used twice
// expected-error @+1 {{violates C2: axis names must be non-empty and unique, 'tp' is not}}
mt.mesh @mesh_c2_duplicate_axis axes = ["tp", "tp"] shape = [2, 2]

// -----

// mt.mesh C2: an empty axis name
// expected-error @+1 {{violates C2: axis names must be non-empty and unique, '' is not}}
mt.mesh @mesh_c2_empty_axis axes = ["dp", ""] shape = [2, 2]

// -----

// mt.mesh C3: an axis of size 0
// expected-error @+1 {{violates C3: axis 'tp' has size 0, sizes must be >= 1}}
mt.mesh @mesh_c3_zero_size axes = ["dp", "tp"] shape = [2, 0]

//===----------------------------------------------------------------------===//
// mt.shard
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C1: the sharding names a mesh that does not exist
func.func @shard_c1_unknown_mesh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@nomesh, [dp, tp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C1: the sharding names a symbol that is not a mesh
func.func @shard_c1_not_a_mesh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: @shard_c1_not_a_mesh does not name an mt.mesh}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@shard_c1_not_a_mesh, [dp, tp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C2: the sharding has fewer dimensions than the tensor
func.func @shard_c2_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: the sharding has 1 dimensions but the tensor has rank 2}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [dp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C3: a dimension split over an axis the mesh lacks
func.func @shard_c3_unknown_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: mesh @mesh has no axis 'sp'}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [_, sp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C3: partial sums over an axis the mesh lacks
func.func @shard_c3_unknown_partial_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: mesh @mesh has no axis 'sp'}}
  %s = mt.shard %x : tensor<4x8xf32> to #mt.sharding<@mesh, [_, _], partial = [sp]>
  return %s : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C4: a dimension of 3 split over an axis of 2
func.func @shard_c4_uneven_split(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{violates C4: dimension 0 of size 3 does not split evenly into 2 shards}}
  %s = mt.shard %x : tensor<3x8xf32> to #mt.sharding<@mesh, [dp, _]>
  return %s : tensor<3x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.shard C4: a dimension of 6 split over two axes of 2 (4 shards)
func.func @shard_c4_uneven_split_two_axes(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{violates C4: dimension 0 of size 6 does not split evenly into 4 shards}}
  %s = mt.shard %x : tensor<6x8xf32> to #mt.sharding<@mesh, [{dp, tp}, _]>
  return %s : tensor<6x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.layer_stack
//===----------------------------------------------------------------------===//

// -----

// mt.layer_stack C1 (parser): a stacked operand of rank 0 has no layer dimension
func.func @layer_stack_c1_parse_rank0_stacked(%x: tensor<4x8xf32>, %w: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{mt.layer_stack violates C1: layer operands are ranked tensors with the layer index as leading dimension}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%wl = %w : tensor<f32>) -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1 (parser): an unranked carried operand
func.func @layer_stack_c1_parse_unranked_carried(%x: tensor<*xf32>, %w: tensor<2x8xf32>) {
  // expected-error @+1 {{mt.layer_stack violates C1: layer operands are ranked tensors}}
  %r = mt.layer_stack (%h = %x : tensor<*xf32>) layers (%wl = %w : tensor<2x8xf32>) -> tensor<*xf32> {
    mt.yield %h : tensor<*xf32>
  }
  return
}

// -----

// mt.layer_stack C5: a negative first layer
func.func @layer_stack_c5_negative_first_layer(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C5: first_layer must be >= 0, got -1}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  } attributes {first_layer = -1 : i64}
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1: no stacked operand at all
func.func @layer_stack_c1_no_stacked(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: expected at least one stacked layer operand}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers () -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1: stacked operands disagree on the number of layers
func.func @layer_stack_c1_layer_count_mismatch(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: every stacked operand needs the same static leading layer dimension >= 1, got 'tensor<3x8xf32>'}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<2x8xf32>, %bl = %b : tensor<3x8xf32>) -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1: a dynamic number of layers
func.func @layer_stack_c1_dynamic_layers(%x: tensor<4x8xf32>, %g: tensor<?x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: every stacked operand needs the same static leading layer dimension >= 1, got 'tensor<?x8xf32>'}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<?x8xf32>) -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1: zero layers
func.func @layer_stack_c1_zero_layers(%x: tensor<4x8xf32>, %g: tensor<0x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: every stacked operand needs the same static leading layer dimension >= 1, got 'tensor<0x8xf32>'}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<0x8xf32>) -> tensor<4x8xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C1: a rank-0 stacked operand in the generic form, which the
// custom parser's check does not see
func.func @layer_stack_c1_generic_rank0_stacked(%x: tensor<4x8xf32>, %w: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: every stacked operand needs the same static leading layer dimension >= 1, got 'tensor<f32>'}}
  %r = "mt.layer_stack"(%x, %w) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%h: tensor<4x8xf32>, %wl: tensor<f32>):
    "mt.yield"(%h) : (tensor<4x8xf32>) -> ()
  }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C2: the result type differs from the carried operand's
func.func @layer_stack_c2_result_type(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{violates C2: result types must equal the carried operand types}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<4x9xf32> {
    mt.yield %h : tensor<4x8xf32>
  }
  return %r : tensor<4x9xf32>
}

// -----

// mt.layer_stack C3: a body argument is the whole stacked operand, not one layer's slice
// (only the generic form can write it; the custom parser derives the body's types)
func.func @layer_stack_c3_block_args(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: the body's arguments must be the carried types followed by the per-layer slices of the stacked operands}}
  %r = "mt.layer_stack"(%x, %g) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%h: tensor<4x8xf32>, %gl: tensor<2x8xf32>):
    "mt.yield"(%h) : (tensor<4x8xf32>) -> ()
  }) : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C4: the body yields a value that is not of the carried type
func.func @layer_stack_c4_yield_type(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C4: mt.yield must return the carried types, got ('tensor<8xf32>')}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<4x8xf32> {
    mt.yield %gl : tensor<8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// mt.layer_stack C4: the body yields nothing
func.func @layer_stack_c4_yield_count(%x: tensor<4x8xf32>, %g: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C4: mt.yield must return the carried types, got ()}}
  %r = mt.layer_stack (%h = %x : tensor<4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<4x8xf32> {
    mt.yield
  }
  return %r : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.embedding
//===----------------------------------------------------------------------===//

// -----

// mt.embedding C1: a rank-1 table
func.func @embedding_c1_table_rank(%t: tensor<100xf32>, %ids: tensor<2x16xi32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C1: the table must be a rank-2 floating-point tensor [vocab, hidden], got 'tensor<100xf32>'}}
  %e = mt.embedding %t[%ids] : tensor<100xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  return %e : tensor<2x16x8xf32>
}

// -----

// mt.embedding C1: an integer table
func.func @embedding_c1_table_int(%t: tensor<100x8xi32>, %ids: tensor<2x16xi32>) -> tensor<2x16x8xi32> {
  // expected-error @+1 {{violates C1: the table must be a rank-2 floating-point tensor [vocab, hidden], got 'tensor<100x8xi32>'}}
  %e = mt.embedding %t[%ids] : tensor<100x8xi32>, tensor<2x16xi32> -> tensor<2x16x8xi32>
  return %e : tensor<2x16x8xi32>
}

// -----

// mt.embedding C2: floating-point ids
func.func @embedding_c2_ids_float(%t: tensor<100x8xf32>, %ids: tensor<2x16xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C2: ids must be i32 or i64, got 'tensor<2x16xf32>'}}
  %e = mt.embedding %t[%ids] : tensor<100x8xf32>, tensor<2x16xf32> -> tensor<2x16x8xf32>
  return %e : tensor<2x16x8xf32>
}

// -----

// mt.embedding C2: i16 ids
func.func @embedding_c2_ids_i16(%t: tensor<100x8xf32>, %ids: tensor<2x16xi16>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C2: ids must be i32 or i64, got 'tensor<2x16xi16>'}}
  %e = mt.embedding %t[%ids] : tensor<100x8xf32>, tensor<2x16xi16> -> tensor<2x16x8xf32>
  return %e : tensor<2x16x8xf32>
}

// -----

// mt.embedding C3: the result's hidden size differs from the table's
func.func @embedding_c3_result_shape(%t: tensor<100x8xf32>, %ids: tensor<2x16xi32>) -> tensor<2x16x9xf32> {
  // expected-error @+1 {{violates C3: the result must be 2x16x8 of 'f32' (ids shape + [hidden]), got 'tensor<2x16x9xf32>'}}
  %e = mt.embedding %t[%ids] : tensor<100x8xf32>, tensor<2x16xi32> -> tensor<2x16x9xf32>
  return %e : tensor<2x16x9xf32>
}

// -----

// mt.embedding C3: the result's element type differs from the table's
func.func @embedding_c3_result_element_type(%t: tensor<100x8xf32>, %ids: tensor<2x16xi32>) -> tensor<2x16x8xf16> {
  // expected-error @+1 {{violates C3: the result must be 2x16x8 of 'f32'}}
  %e = mt.embedding %t[%ids] : tensor<100x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf16>
  return %e : tensor<2x16x8xf16>
}

//===----------------------------------------------------------------------===//
// mt.position_embedding
//===----------------------------------------------------------------------===//

// -----

// mt.position_embedding C1: a rank-3 table
func.func @position_embedding_c1_table_rank(%t: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C1: the table must be a rank-2 floating-point tensor [positions, hidden], got 'tensor<2x16x8xf32>'}}
  %p = mt.position_embedding %t for %ids : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<16x8xf32>
  return %p : tensor<16x8xf32>
}

// -----

// mt.position_embedding C1: an integer table
func.func @position_embedding_c1_table_int(%t: tensor<16x8xi64>, %ids: tensor<2x16xi32>) -> tensor<16x8xi64> {
  // expected-error @+1 {{violates C1: the table must be a rank-2 floating-point tensor [positions, hidden], got 'tensor<16x8xi64>'}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xi64>, tensor<2x16xi32> -> tensor<16x8xi64>
  return %p : tensor<16x8xi64>
}

// -----

// mt.position_embedding C2: floating-point ids
func.func @position_embedding_c2_ids_float(%t: tensor<16x8xf32>, %ids: tensor<2x16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C2: ids must be i32 or i64 of rank >= 1, got 'tensor<2x16xf32>'}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xf32>, tensor<2x16xf32> -> tensor<16x8xf32>
  return %p : tensor<16x8xf32>
}

// -----

// mt.position_embedding C2: scalar ids have no sequence dimension
func.func @position_embedding_c2_ids_rank0(%t: tensor<16x8xf32>, %ids: tensor<i32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C2: ids must be i32 or i64 of rank >= 1, got 'tensor<i32>'}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xf32>, tensor<i32> -> tensor<16x8xf32>
  return %p : tensor<16x8xf32>
}

// -----

// mt.position_embedding C3: the result keeps the batch dimension
func.func @position_embedding_c3_result_shape(%t: tensor<16x8xf32>, %ids: tensor<2x16xi32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C3: the result must be 16x8 of 'f32' ([seq, hidden], or [batch, seq, hidden] with a position per row), got 'tensor<2x16x8xf32>'}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  return %p : tensor<2x16x8xf32>
}

// -----

// mt.position_embedding C3: the result's element type differs from the table's
func.func @position_embedding_c3_result_element_type(%t: tensor<16x8xf32>, %ids: tensor<2x16xi32>) -> tensor<16x8xbf16> {
  // expected-error @+1 {{violates C3: the result must be 16x8 of 'f32' ([seq, hidden], or [batch, seq, hidden] with a position per row), got 'tensor<16x8xbf16>'}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xf32>, tensor<2x16xi32> -> tensor<16x8xbf16>
  return %p : tensor<16x8xbf16>
}

// -----

// mt.position_embedding C4: a sequence longer than the table
func.func @position_embedding_c4_sequence_too_long(%t: tensor<16x8xf32>, %ids: tensor<2x32xi32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{violates C4: sequence length 32 exceeds the table's 16 positions}}
  %p = mt.position_embedding %t for %ids : tensor<16x8xf32>, tensor<2x32xi32> -> tensor<32x8xf32>
  return %p : tensor<32x8xf32>
}

// -----

// mt.position_embedding C5: a position that is not tensor<i64>
func.func @position_embedding_c5_position_type(%t: tensor<16x8xf32>, %ids: tensor<2x1xi32>, %at: tensor<i32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{violates C5: the position must be tensor<i64>, or one i64 per row of [batch, seq] ids, got 'tensor<i32>' for ids 'tensor<2x1xi32>'}}
  %p = mt.position_embedding %t for %ids at %at : tensor<i32> : tensor<16x8xf32>, tensor<2x1xi32> -> tensor<1x8xf32>
  return %p : tensor<1x8xf32>
}

// -----

// mt.position_embedding C5: positions per row, but not one for each row
func.func @position_embedding_c5_rows(%t: tensor<16x8xf32>, %ids: tensor<2x4xi32>, %at: tensor<3xi64>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{violates C5: the position must be tensor<i64>, or one i64 per row of [batch, seq] ids, got 'tensor<3xi64>' for ids 'tensor<2x4xi32>'}}
  %p = mt.position_embedding %t for %ids at %at : tensor<3xi64> : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  return %p : tensor<2x4x8xf32>
}

// -----

// mt.position_embedding C3: a position per row gives [batch, seq, hidden]
func.func @position_embedding_c3_rows(%t: tensor<16x8xf32>, %ids: tensor<2x4xi32>, %at: tensor<2xi64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: the result must be 2x4x8 of 'f32' ([seq, hidden], or [batch, seq, hidden] with a position per row), got 'tensor<4x8xf32>'}}
  %p = mt.position_embedding %t for %ids at %at : tensor<2xi64> : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.linear
//===----------------------------------------------------------------------===//

// -----

// mt.linear C1: a rank-1 weight
func.func @linear_c1_weight_rank(%x: tensor<2x16x8xf32>, %w: tensor<24xf32>) -> tensor<2x16x24xf32> {
  // expected-error @+1 {{violates C1: the weight must be [out_features, in_features], got 'tensor<24xf32>'}}
  %y = mt.linear %x, %w : tensor<2x16x8xf32>, tensor<24xf32> -> tensor<2x16x24xf32>
  return %y : tensor<2x16x24xf32>
}

// -----

// mt.linear C2: the input's last dimension differs from in_features
func.func @linear_c2_in_features(%x: tensor<2x16x8xf32>, %w: tensor<24x9xf32>) -> tensor<2x16x24xf32> {
  // expected-error @+1 {{violates C2: the input's last dimension must equal in_features 9, got 'tensor<2x16x8xf32>'}}
  %y = mt.linear %x, %w : tensor<2x16x8xf32>, tensor<24x9xf32> -> tensor<2x16x24xf32>
  return %y : tensor<2x16x24xf32>
}

// -----

// mt.linear C2: a scalar input has no feature dimension
func.func @linear_c2_scalar_input(%x: tensor<f32>, %w: tensor<24x8xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{violates C2: the input's last dimension must equal in_features 8, got 'tensor<f32>'}}
  %y = mt.linear %x, %w : tensor<f32>, tensor<24x8xf32> -> tensor<24xf32>
  return %y : tensor<24xf32>
}

// -----

// mt.linear C3: the bias length differs from out_features
func.func @linear_c3_bias(%x: tensor<2x16x8xf32>, %w: tensor<24x8xf32>, %b: tensor<23xf32>) -> tensor<2x16x24xf32> {
  // expected-error @+1 {{violates C3: the bias must be [24] (out_features), got 'tensor<23xf32>'}}
  %y = mt.linear %x, %w, %b : tensor<2x16x8xf32>, tensor<24x8xf32>, tensor<23xf32> -> tensor<2x16x24xf32>
  return %y : tensor<2x16x24xf32>
}

// -----

// mt.linear C3: a rank-2 bias
func.func @linear_c3_bias_rank(%x: tensor<2x16x8xf32>, %w: tensor<24x8xf32>, %b: tensor<1x24xf32>) -> tensor<2x16x24xf32> {
  // expected-error @+1 {{violates C3: the bias must be [24] (out_features), got 'tensor<1x24xf32>'}}
  %y = mt.linear %x, %w, %b : tensor<2x16x8xf32>, tensor<24x8xf32>, tensor<1x24xf32> -> tensor<2x16x24xf32>
  return %y : tensor<2x16x24xf32>
}

// -----

// mt.linear C4: the result's last dimension differs from out_features
func.func @linear_c4_result_shape(%x: tensor<2x16x8xf32>, %w: tensor<24x8xf32>) -> tensor<2x16x25xf32> {
  // expected-error @+1 {{violates C4: the result must be 2x16x24, got 'tensor<2x16x25xf32>'}}
  %y = mt.linear %x, %w : tensor<2x16x8xf32>, tensor<24x8xf32> -> tensor<2x16x25xf32>
  return %y : tensor<2x16x25xf32>
}

// -----

// mt.linear C5: integer operands
func.func @linear_c5_integer(%x: tensor<2x16x8xi32>, %w: tensor<24x8xi32>) -> tensor<2x16x24xi32> {
  // expected-error @+1 {{violates C5: input, weight, bias and result must share one floating-point element type}}
  %y = mt.linear %x, %w : tensor<2x16x8xi32>, tensor<24x8xi32> -> tensor<2x16x24xi32>
  return %y : tensor<2x16x24xi32>
}

// -----

// mt.linear C5: the bias has another element type
func.func @linear_c5_bias_element_type(%x: tensor<2x16x8xf32>, %w: tensor<24x8xf32>, %b: tensor<24xf16>) -> tensor<2x16x24xf32> {
  // expected-error @+1 {{violates C5: input, weight, bias and result must share one floating-point element type}}
  %y = mt.linear %x, %w, %b : tensor<2x16x8xf32>, tensor<24x8xf32>, tensor<24xf16> -> tensor<2x16x24xf32>
  return %y : tensor<2x16x24xf32>
}

//===----------------------------------------------------------------------===//
// mt.matmul
//===----------------------------------------------------------------------===//

// -----

// mt.matmul C1: a vector operand
func.func @matmul_c1_rank(%a: tensor<16xf32>, %b: tensor<16x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{violates C1: both operands need rank >= 2, got 'tensor<16xf32>' and 'tensor<16x8xf32>'}}
  %c = mt.matmul %a, %b : tensor<16xf32>, tensor<16x8xf32> -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// mt.matmul C2: rhs has other batch dimensions than lhs
func.func @matmul_c2_batch(%a: tensor<4x16x32xf32>, %b: tensor<3x32x8xf32>) -> tensor<4x16x8xf32> {
  // expected-error @+1 {{violates C2: rhs must have lhs's batch dimensions [4] or be a matrix, got 'tensor<3x32x8xf32>'}}
  %c = mt.matmul %a, %b : tensor<4x16x32xf32>, tensor<3x32x8xf32> -> tensor<4x16x8xf32>
  return %c : tensor<4x16x8xf32>
}

// -----

// mt.matmul C3: contraction sizes differ
func.func @matmul_c3_contraction(%a: tensor<16x32xf32>, %b: tensor<31x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C3: contraction sizes differ: 32 vs 31}}
  %c = mt.matmul %a, %b : tensor<16x32xf32>, tensor<31x8xf32> -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// mt.matmul C3: transpose_rhs makes the contraction sizes differ
func.func @matmul_c3_contraction_transposed(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{violates C3: contraction sizes differ: 32 vs 8}}
  %c = mt.matmul %a, %b {transpose_rhs} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// -----

// mt.matmul C4: a wrong result shape
func.func @matmul_c4_result_shape(%a: tensor<4x16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C4: the result must be 4x16x8, got 'tensor<16x8xf32>'}}
  %c = mt.matmul %a, %b : tensor<4x16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// mt.matmul C5: operands of different element types
func.func @matmul_c5_element_type(%a: tensor<16x32xf32>, %b: tensor<32x8xf16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C5: operands must share one floating-point element type, and the result must have it (or be f32 when it is 16-bit)}}
  %c = mt.matmul %a, %b : tensor<16x32xf32>, tensor<32x8xf16> -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// mt.matmul C5: 16-bit operands widen only to f32
func.func @matmul_c5_widen_to_f64(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<16x8xf64> {
  // expected-error @+1 {{violates C5: operands must share one floating-point element type, and the result must have it (or be f32 when it is 16-bit)}}
  %c = mt.matmul %a, %b : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xf64>
  return %c : tensor<16x8xf64>
}

// -----

// mt.matmul C5: integer operands
func.func @matmul_c5_integer(%a: tensor<16x32xi32>, %b: tensor<32x8xi32>) -> tensor<16x8xi32> {
  // expected-error @+1 {{violates C5: operands must share one floating-point element type, and the result must have it (or be f32 when it is 16-bit)}}
  %c = mt.matmul %a, %b : tensor<16x32xi32>, tensor<32x8xi32> -> tensor<16x8xi32>
  return %c : tensor<16x8xi32>
}

// -----

// mt.matmul C6: an accumulator of another shape
func.func @matmul_c6_plus_type(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %acc: tensor<8x16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{violates C6: the tensor added with `plus` must have the result's type 'tensor<16x8xf32>', got 'tensor<8x16xf32>'}}
  %c = mt.matmul %a, %b plus %acc : tensor<8x16xf32> : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.layer_norm
//===----------------------------------------------------------------------===//

// -----

// mt.layer_norm C1: an integer input
func.func @layer_norm_c1_integer(%x: tensor<2x8xi32>, %g: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<2x8xi32>, tensor<8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.layer_norm C1: a scalar input
func.func @layer_norm_c1_scalar(%x: tensor<f32>, %g: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<f32>, tensor<1xf32>
  return %y : tensor<f32>
}

// -----

// mt.layer_norm C2: gamma and beta of the wrong length
func.func @layer_norm_c2_affine_shape(%x: tensor<2x8xf32>, %g: tensor<9xf32>, %b: tensor<9xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<9xf32>'}}
  %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<9xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.layer_norm C2: gamma and beta of another element type
func.func @layer_norm_c2_affine_element_type(%x: tensor<2x8xf32>, %g: tensor<8xbf16>, %b: tensor<8xbf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<8xbf16>'}}
  %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<8xbf16>
  return %y : tensor<2x8xf32>
}

// -----

// mt.layer_norm C3: epsilon of 0
func.func @layer_norm_c3_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: epsilon must be positive, got 0}}
  %y = mt.layer_norm %x, %g, %b {epsilon = 0.0 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.add_layer_norm
//===----------------------------------------------------------------------===//

// -----

// mt.add_layer_norm C1: an integer input
func.func @add_layer_norm_c1_integer(%x: tensor<2x8xi32>, %g: tensor<8xi32>) {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %s, %y = mt.add_layer_norm %x, %x, %g, %g {epsilon = 1.0e-5 : f64} : tensor<2x8xi32>, tensor<8xi32>
  return
}

// -----

// mt.add_layer_norm C2: gamma and beta of the wrong length
func.func @add_layer_norm_c2_affine_shape(%x: tensor<2x8xf32>, %g: tensor<9xf32>) {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<9xf32>'}}
  %s, %y = mt.add_layer_norm %x, %x, %g, %g {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<9xf32>
  return
}

// -----

// mt.add_layer_norm C3: epsilon of 0
func.func @add_layer_norm_c3_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{violates C3: epsilon must be positive, got 0}}
  %s, %y = mt.add_layer_norm %x, %x, %g, %g {epsilon = 0.0 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.rms_norm
//===----------------------------------------------------------------------===//

// -----

// mt.rms_norm C1: an integer input
func.func @rms_norm_c1_integer(%x: tensor<2x8xi64>, %g: tensor<8xi64>) -> tensor<2x8xi64> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi64>'}}
  %y = mt.rms_norm %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x8xi64>, tensor<8xi64>
  return %y : tensor<2x8xi64>
}

// -----

// mt.rms_norm C1: a scalar input
func.func @rms_norm_c1_scalar(%x: tensor<f32>, %g: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %y = mt.rms_norm %x, %g {epsilon = 1.0e-6 : f64} : tensor<f32>, tensor<1xf32>
  return %y : tensor<f32>
}

// -----

// mt.rms_norm C2: gamma of the wrong length
func.func @rms_norm_c2_gamma_shape(%x: tensor<2x8xf32>, %g: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<4xf32>'}}
  %y = mt.rms_norm %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x8xf32>, tensor<4xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.rms_norm C2: a rank-2 gamma
func.func @rms_norm_c2_gamma_rank(%x: tensor<2x8xf32>, %g: tensor<1x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<1x8xf32>'}}
  %y = mt.rms_norm %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x8xf32>, tensor<1x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.rms_norm C3: a negative epsilon
func.func @rms_norm_c3_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: epsilon must be positive, got -1}}
  %y = mt.rms_norm %x, %g {epsilon = -1.0e-6 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.gelu
//===----------------------------------------------------------------------===//

// -----

// mt.gelu C1: an integer input
func.func @gelu_c1_integer(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.gelu %x approximate = tanh : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.silu C1: an integer input
func.func @silu_c1_integer(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.silu %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.silu_grad C1: an integer input
func.func @silu_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.silu_grad %dy, %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// mt.relu C1: an integer input
func.func @relu_c1_integer(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.relu %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.relu_grad C1: an integer input
func.func @relu_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.relu_grad %dy, %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.tanh C1: an integer input
func.func @tanh_c1_integer(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.tanh %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.tanh_grad C1: an integer input
func.func @tanh_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.tanh_grad %dy, %x : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// mt.bias_dropout_add
//===----------------------------------------------------------------------===//

// -----

// mt.bias_dropout_add C1: integer
func.func @bias_dropout_add_c1_integer(%x: tensor<2x8xi32>, %b: tensor<8xi32>, %r: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %y = mt.bias_dropout_add %x, %b, %r {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xi32>, tensor<8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.bias_dropout_add C2: rate one
func.func @bias_dropout_add_c2_rate_one(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got 1}}
  %y = mt.bias_dropout_add %x, %b, %r {rate = 1.0 : f64, stream = 0 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C3: seed rank
func.func @bias_dropout_add_c3_seed_rank(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>, %s: tensor<1xi64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<1xi64>'}}
  %y = mt.bias_dropout_add %x, %b, %r seed %s : tensor<1xi64> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C4: negative stream
func.func @bias_dropout_add_c4_negative_stream(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C4: stream must be >= 0, got -1}}
  %y = mt.bias_dropout_add %x, %b, %r {rate = 0.1 : f64, stream = -1 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C5: negative layer
func.func @bias_dropout_add_c5_negative_layer(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C5: layer must be >= 0, got -2}}
  %y = mt.bias_dropout_add %x, %b, %r {rate = 0.1 : f64, stream = 0 : i64, layer = -2 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C6: shard without dim
func.func @bias_dropout_add_c6_shard_without_dim(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C6: shard (a tensor<i64>), shard_dim and shard_parts come together}}
  %y = mt.bias_dropout_add %x, %b, %r shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C7: shard dim
func.func @bias_dropout_add_c7_shard_dim(%x: tensor<2x8xf32>, %b: tensor<8xf32>, %r: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C7: shard_dim 2 must be a dimension of the rank-2 input and shard_parts 2 >= 1}}
  %y = mt.bias_dropout_add %x, %b, %r shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64, shard_dim = 2 : i64, shard_parts = 2 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.bias_dropout_add C8: bias size
func.func @bias_dropout_add_c8_bias_size(%x: tensor<2x8xf32>, %b: tensor<4xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C8: the bias must be [8] of 'f32' (the input's last dimension), got 'tensor<4xf32>'}}
  %y = mt.bias_dropout_add %x, %b, %r {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>, tensor<4xf32>
  return %y : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mt.bias_gelu
//===----------------------------------------------------------------------===//

// -----

// mt.bias_gelu C1: an integer input
func.func @bias_gelu_c1_integer(%x: tensor<2x8xi32>, %b: tensor<8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %y = mt.bias_gelu %x, %b approximate = tanh : tensor<2x8xi32>, tensor<8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.bias_gelu C2: a bias of the wrong size
func.func @bias_gelu_c2_bias_size(%x: tensor<2x8xf32>, %b: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: the bias must be [8] of 'f32' (the input's last dimension), got 'tensor<4xf32>'}}
  %y = mt.bias_gelu %x, %b approximate = tanh : tensor<2x8xf32>, tensor<4xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.softmax
//===----------------------------------------------------------------------===//

// -----

// mt.softmax C1: an integer input
func.func @softmax_c1_integer(%x: tensor<2x16xi32>) -> tensor<2x16xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x16xi32>'}}
  %p = mt.softmax %x : tensor<2x16xi32>
  return %p : tensor<2x16xi32>
}

// -----

// mt.softmax C1: a scalar input
func.func @softmax_c1_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %p = mt.softmax %x : tensor<f32>
  return %p : tensor<f32>
}

// -----

// mt.softmax C2: a causal mask over a rank-1 input
func.func @softmax_c2_causal_rank(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{violates C2: a causal mask needs [..., queries, keys], got 'tensor<16xf32>'}}
  %p = mt.softmax %x {mask = #mt<mask causal>} : tensor<16xf32>
  return %p : tensor<16xf32>
}

// -----

// mt.softmax C2: a causal mask with fewer keys than queries
func.func @softmax_c2_causal_fewer_keys(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C2: a causal mask needs at least as many keys as queries, got 16 queries and 8 keys}}
  %p = mt.softmax %x {mask = #mt<mask causal>} : tensor<2x16x8xf32>
  return %p : tensor<2x16x8xf32>
}

// -----

// mt.softmax C3: a key mask that is not i1
func.func @softmax_c3_key_mask_element_type(%x: tensor<2x8x16x16xf32>, %keep: tensor<2x16xi32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: key_mask must be i1 [batch, keys] = [2x16], got 'tensor<2x16xi32>'}}
  %p = mt.softmax %x key_mask %keep : tensor<2x16xi32> : tensor<2x8x16x16xf32>
  return %p : tensor<2x8x16x16xf32>
}

// -----

// mt.softmax C3: a key mask of the wrong number of keys
func.func @softmax_c3_key_mask_shape(%x: tensor<2x8x16x16xf32>, %keep: tensor<2x15xi1>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: key_mask must be i1 [batch, keys] = [2x16], got 'tensor<2x15xi1>'}}
  %p = mt.softmax %x key_mask %keep : tensor<2x15xi1> : tensor<2x8x16x16xf32>
  return %p : tensor<2x8x16x16xf32>
}

// -----

// mt.softmax C3: a key mask on a rank-1 input, which has no batch dimension
func.func @softmax_c3_key_mask_rank1_input(%x: tensor<16xf32>, %keep: tensor<16x16xi1>) -> tensor<16xf32> {
  // expected-error @+1 {{violates C3: key_mask must be i1 [batch, keys]}}
  %p = mt.softmax %x key_mask %keep : tensor<16x16xi1> : tensor<16xf32>
  return %p : tensor<16xf32>
}

// -----

// mt.softmax C4: a scale of 0
func.func @softmax_c4_zero_scale(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C4: scale must be positive and finite, got 0}}
  %p = mt.softmax %x {scale = 0.0 : f64} : tensor<2x16xf32>
  return %p : tensor<2x16xf32>
}

// -----

// mt.softmax C5: a position without a causal mask
func.func @softmax_c5_position_without_causal(%x: tensor<2x4x1x16xf32>, %pos: tensor<i64>) -> tensor<2x4x1x16xf32> {
  // expected-error @+1 {{violates C5: position must be tensor<i64> with mask = causal, got 'tensor<i64>' with mask = none}}
  %p = mt.softmax %x position %pos : tensor<i64> : tensor<2x4x1x16xf32>
  return %p : tensor<2x4x1x16xf32>
}

// -----

// mt.softmax C5: a position that is not tensor<i64>
func.func @softmax_c5_position_type(%x: tensor<2x4x1x16xf32>, %pos: tensor<2xi64>) -> tensor<2x4x1x16xf32> {
  // expected-error @+1 {{violates C5: position must be tensor<i64> with mask = causal, got 'tensor<2xi64>' with mask = causal}}
  %p = mt.softmax %x position %pos : tensor<2xi64> {mask = #mt<mask causal>} : tensor<2x4x1x16xf32>
  return %p : tensor<2x4x1x16xf32>
}

// -----

// mt.softmax C4: an infinite scale
func.func @softmax_c4_infinite_scale(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C4: scale must be positive and finite, got INF}}
  %p = mt.softmax %x {scale = 0x7FF0000000000000 : f64} : tensor<2x16xf32>
  return %p : tensor<2x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.dropout
//===----------------------------------------------------------------------===//

// -----

// mt.dropout C1: an integer input
func.func @dropout_c1_integer(%x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.dropout %x {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

// mt.dropout C2: a rate of 1
func.func @dropout_c2_rate_one(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got 1}}
  %y = mt.dropout %x {rate = 1.0 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C2: a negative rate
func.func @dropout_c2_rate_negative(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got -1.000000e-01}}
  %y = mt.dropout %x {rate = -0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C3: an i32 seed
func.func @dropout_c3_seed_element_type(%x: tensor<2x8xf32>, %seed: tensor<i32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<i32>'}}
  %y = mt.dropout %x seed %seed : tensor<i32> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C3: a seed that is not a scalar
func.func @dropout_c3_seed_rank(%x: tensor<2x8xf32>, %seed: tensor<1xi64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<1xi64>'}}
  %y = mt.dropout %x seed %seed : tensor<1xi64> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C4: a negative stream (I64Attr values are read signed)
func.func @dropout_c4_negative_stream(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C4: stream must be >= 0, got -1}}
  %y = mt.dropout %x {rate = 0.1 : f64, stream = -1 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C5: a negative layer index
func.func @dropout_c5_negative_layer(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C5: layer must be >= 0, got -1}}
  %y = mt.dropout %x {layer = -1 : i64, rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.dropout_mask, mt.masked_scale
//===----------------------------------------------------------------------===//

// -----

// mt.dropout_mask C1: a float mask
func.func @dropout_mask_c1_float() -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C1: the mask must be a tensor of i1, got 'tensor<2x8xf32>'}}
  %m = mt.dropout_mask {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %m : tensor<2x8xf32>
}

// -----

// mt.dropout_mask C2: a rate of 1
func.func @dropout_mask_c2_rate_one() -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got 1}}
  %m = mt.dropout_mask {rate = 1.0 : f64, stream = 0 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.dropout_mask C3: an i32 seed
func.func @dropout_mask_c3_seed(%seed: tensor<i32>) -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<i32>'}}
  %m = mt.dropout_mask seed %seed : tensor<i32> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.dropout_mask C4: a negative stream
func.func @dropout_mask_c4_negative_stream() -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C4: stream must be >= 0, got -1}}
  %m = mt.dropout_mask {rate = 0.1 : f64, stream = -1 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.dropout_mask C5: a negative layer index
func.func @dropout_mask_c5_negative_layer() -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C5: layer must be >= 0, got -2}}
  %m = mt.dropout_mask {layer = -2 : i64, rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.dropout_mask C6: a shard without shard_dim and shard_parts
func.func @dropout_mask_c6_shard_without_dim(%i: tensor<i64>) -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C6: shard (a tensor<i64>), shard_dim and shard_parts come together}}
  %m = mt.dropout_mask shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.dropout_mask C7: shard_dim past the rank
func.func @dropout_mask_c7_shard_dim(%i: tensor<i64>) -> tensor<2x8xi1> {
  // expected-error @+1 {{violates C7: shard_dim 2 must be a dimension of the rank-2 input and shard_parts 2 >= 1}}
  %m = mt.dropout_mask shard %i : tensor<i64> {rate = 0.1 : f64, shard_dim = 2 : i64, shard_parts = 2 : i64, stream = 0 : i64} : tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}

// -----

// mt.masked_scale C1: an integer input
func.func @masked_scale_c1_integer(%x: tensor<2x8xi32>, %m: tensor<2x8xi1>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %y = mt.masked_scale %x, %m {scale = 2.0 : f64} : tensor<2x8xi32>, tensor<2x8xi1>
  return %y : tensor<2x8xi32>
}

// -----

// mt.masked_scale C2: a mask of another shape
func.func @masked_scale_c2_mask_shape(%x: tensor<2x8xf32>, %m: tensor<8xi1>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: the mask must be i1 of the input's shape, got 'tensor<8xi1>'}}
  %y = mt.masked_scale %x, %m {scale = 2.0 : f64} : tensor<2x8xf32>, tensor<8xi1>
  return %y : tensor<2x8xf32>
}

// -----

// mt.masked_scale C3: a zero scale
func.func @masked_scale_c3_scale(%x: tensor<2x8xf32>, %m: tensor<2x8xi1>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C3: scale must be positive and finite, got 0}}
  %y = mt.masked_scale %x, %m {scale = 0.0 : f64} : tensor<2x8xf32>, tensor<2x8xi1>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.add, mt.mul
//===----------------------------------------------------------------------===//

// -----

// mt.add C1: operands of different element types
func.func @add_c1_element_type(%a: tensor<2x8xf32>, %b: tensor<2x8xf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C1: operands must share an element type, got 'f32' and 'f16'}}
  %c = mt.add %a, %b : tensor<2x8xf32>, tensor<2x8xf16>
  return %c : tensor<2x8xf32>
}

// -----

// mt.add C2: rhs is not a suffix of lhs
func.func @add_c2_not_suffix(%a: tensor<2x16x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C2: rhs shape 2x8 must equal a suffix of lhs shape 2x16x8}}
  %c = mt.add %a, %b : tensor<2x16x8xf32>, tensor<2x8xf32>
  return %c : tensor<2x16x8xf32>
}

// -----

// mt.add C2: rhs has a higher rank than lhs
func.func @add_c2_rhs_rank(%a: tensor<8xf32>, %b: tensor<2x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{violates C2: rhs shape 2x8 must equal a suffix of lhs shape 8}}
  %c = mt.add %a, %b : tensor<8xf32>, tensor<2x8xf32>
  return %c : tensor<8xf32>
}

// -----

// mt.mul C1: operands of different element types
func.func @mul_c1_element_type(%a: tensor<2x8xf32>, %b: tensor<8xi32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C1: operands must share an element type, got 'f32' and 'i32'}}
  %c = mt.mul %a, %b : tensor<2x8xf32>, tensor<8xi32>
  return %c : tensor<2x8xf32>
}

// -----

// mt.mul C2: rhs is not a suffix of lhs
func.func @mul_c2_not_suffix(%a: tensor<2x8xf32>, %b: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: rhs shape 4 must equal a suffix of lhs shape 2x8}}
  %c = mt.mul %a, %b : tensor<2x8xf32>, tensor<4xf32>
  return %c : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.split
//===----------------------------------------------------------------------===//

// -----

// mt.split C1: dim past the rank
func.func @split_c1_dim_too_large(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C1: dim 3 is outside rank 3}}
  %p:2 = mt.split %x {dim = 3 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x16xf32>
  return
}

// -----

// mt.split C1: a negative dim
func.func @split_c1_dim_negative(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C1: dim -1 is outside rank 3}}
  %p:2 = mt.split %x {dim = -1 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x16xf32>
  return
}

// -----

// mt.split C2: a piece of size 0
func.func @split_c2_zero_size(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C2: sizes must be >= 1, got 0}}
  %p:2 = mt.split %x {dim = 2 : i64, sizes = array<i64: 0, 24>} : tensor<2x16x24xf32> -> tensor<2x16x0xf32>, tensor<2x16x24xf32>
  return
}

// -----

// mt.split C2: the sizes do not add up to the dimension
func.func @split_c2_sum(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C2: sizes add up to 16 but dimension 2 has 24}}
  %p:2 = mt.split %x {dim = 2 : i64, sizes = array<i64: 8, 8>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x8xf32>
  return
}

// -----

// mt.split C3: fewer results than sizes
func.func @split_c3_result_count(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C3: expected one result per size (2), got 1}}
  %p = mt.split %x {dim = 2 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>
  return
}

// -----

// mt.split C3: a result of the wrong shape
func.func @split_c3_result_shape(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C3: expected a result 2x16x16 of 'f32', got 'tensor<2x16x15xf32>'}}
  %p:2 = mt.split %x {dim = 2 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x15xf32>
  return
}

// -----

// mt.split C3: a result of another element type
func.func @split_c3_result_element_type(%x: tensor<2x16x24xf32>) {
  // expected-error @+1 {{violates C3: expected a result 2x16x8 of 'f32', got 'tensor<2x16x8xf16>'}}
  %p:2 = mt.split %x {dim = 2 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf16>, tensor<2x16x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.cross_entropy
//===----------------------------------------------------------------------===//

// -----

// mt.cross_entropy C1: integer logits
func.func @cross_entropy_c1_integer_logits(%logits: tensor<2x16x100xi32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor [..., classes], got 'tensor<2x16x100xi32>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<2x16x100xi32>, tensor<2x16xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C1: scalar logits
func.func @cross_entropy_c1_scalar_logits(%logits: tensor<f32>, %labels: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor [..., classes], got 'tensor<f32>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<f32>, tensor<i32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C2: floating-point labels
func.func @cross_entropy_c2_float_labels(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: labels must be i32 or i64 [2x16], got 'tensor<2x16xf32>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<2x16x100xf32>, tensor<2x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C2: labels of the wrong shape
func.func @cross_entropy_c2_labels_shape(%logits: tensor<2x16x100xf32>, %labels: tensor<2x15xi64>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: labels must be i32 or i64 [2x16], got 'tensor<2x15xi64>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<2x16x100xf32>, tensor<2x15xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C3: an integer loss mask
func.func @cross_entropy_c3_integer_mask(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi64>, %mask: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C3: the loss mask must be floating-point [2x16], got 'tensor<2x16xi32>'}}
  %l = mt.cross_entropy %logits, %labels mask %mask : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C3: a loss mask of the wrong shape
func.func @cross_entropy_c3_mask_shape(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi64>, %mask: tensor<16xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C3: the loss mask must be floating-point [2x16], got 'tensor<16xf32>'}}
  %l = mt.cross_entropy %logits, %labels mask %mask : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C4: an f16 loss
func.func @cross_entropy_c4_result_element_type(%logits: tensor<2x16x100xf16>, %labels: tensor<2x16xi32>) -> tensor<f16> {
  // expected-error @+1 {{violates C4: the result must be tensor<f32>, got 'tensor<f16>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<2x16x100xf16>, tensor<2x16xi32> -> tensor<f16>
  return %l : tensor<f16>
}

// -----

// mt.cross_entropy C4: a per-token loss instead of a scalar
func.func @cross_entropy_c4_result_rank(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C4: the result must be tensor<f32>, got 'tensor<2x16xf32>'}}
  %l = mt.cross_entropy %logits, %labels : tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<2x16xf32>
  return %l : tensor<2x16xf32>
}

// -----

// mt.cross_entropy C5: num_classes past the last dimension
func.func @cross_entropy_c5_num_classes_too_large(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, 100], got 101}}
  %l = mt.cross_entropy %logits, %labels {num_classes = 101 : i64} : tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy C5: num_classes of 0
func.func @cross_entropy_c5_num_classes_zero(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, 100], got 0}}
  %l = mt.cross_entropy %logits, %labels {num_classes = 0 : i64} : tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// mt.fused_cross_entropy
//===----------------------------------------------------------------------===//

// mt.fused_cross_entropy C1: integer logits
func.func @fused_cross_entropy_c1_integer_logits(%d: tensor<f32>, %logits: tensor<2x16x100xi32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor [..., classes], got 'tensor<2x16x100xi32>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<f32>, tensor<2x16x100xi32>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x100xf32>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C2: labels of the wrong shape
func.func @fused_cross_entropy_c2_labels_shape(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x8xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: labels must be i32 or i64 [2x16], got 'tensor<2x8xi32>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<f32>, tensor<2x16x100xf32>, tensor<2x8xi32> -> tensor<f32>, tensor<2x16x100xf32>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C3: an integer loss mask
func.func @fused_cross_entropy_c3_integer_mask(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>, %m: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C3: the loss mask must be floating-point [2x16], got 'tensor<2x16xi32>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels mask %m : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x100xf32>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C4: an f16 loss
func.func @fused_cross_entropy_c4_f16_loss(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f16> {
  // expected-error @+1 {{violates C4: the loss must be tensor<f32>, got 'tensor<f16>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f16>, tensor<2x16x100xf32>
  return %l : tensor<f16>
}

// -----

// mt.fused_cross_entropy C5: num_classes past the last dimension
func.func @fused_cross_entropy_c5_num_classes_too_large(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, 100], got 101}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels {num_classes = 101 : i64} : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x100xf32>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C6: a per-token incoming gradient
func.func @fused_cross_entropy_c6_grad_rank(%d: tensor<2x16xf32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C6: grad must be tensor<f32> (the loss's gradient), got 'tensor<2x16xf32>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<2x16xf32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x100xf32>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C7: a gradient of another shape
func.func @fused_cross_entropy_c7_grad_shape(%d: tensor<f32>, %logits: tensor<2x16x100xbf16>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C7: the logits' gradient must be a floating-point tensor of the logits' shape [2x16x100], got 'tensor<2x16x50xbf16>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<f32>, tensor<2x16x100xbf16>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x50xbf16>
  return %l : tensor<f32>
}

// -----

// mt.fused_cross_entropy C7: an integer gradient
func.func @fused_cross_entropy_c7_integer_grad(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C7: the logits' gradient must be a floating-point tensor of the logits' shape [2x16x100], got 'tensor<2x16x100xi32>'}}
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>, tensor<2x16x100xi32>
  return %l : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// mt.accuracy, mt.accuracy_from_stats
//===----------------------------------------------------------------------===//

// mt.accuracy C1: integer logits
func.func @accuracy_c1_integer_logits(%logits: tensor<2x16x100xi32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor [..., classes], got 'tensor<2x16x100xi32>'}}
  %a = mt.accuracy %logits, %labels : tensor<2x16x100xi32>, tensor<2x16xi32> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy C2: labels of the wrong shape
func.func @accuracy_c2_labels_shape(%logits: tensor<2x16x100xf32>, %labels: tensor<2x15xi64>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: labels must be i32 or i64 [2x16], got 'tensor<2x15xi64>'}}
  %a = mt.accuracy %logits, %labels : tensor<2x16x100xf32>, tensor<2x15xi64> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy C3: an integer loss mask
func.func @accuracy_c3_integer_mask(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi64>, %mask: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C3: the loss mask must be floating-point [2x16], got 'tensor<2x16xi32>'}}
  %a = mt.accuracy %logits, %labels mask %mask : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xi32> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy C4: a per-token result
func.func @accuracy_c4_result_rank(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C4: the result must be tensor<f32>, got 'tensor<2x16xf32>'}}
  %a = mt.accuracy %logits, %labels : tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<2x16xf32>
  return %a : tensor<2x16xf32>
}

// -----

// mt.accuracy C5: num_classes past the last dimension
func.func @accuracy_c5_num_classes(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, 100], got 101}}
  %a = mt.accuracy %logits, %labels {num_classes = 101 : i64} : tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy_from_stats C1: statistics of different types
func.func @accuracy_from_stats_c1_types(%t: tensor<2xf32>, %m: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: label_logit and max must be one floating-point type}}
  %a = mt.accuracy_from_stats %t, %m : tensor<2xf32>, tensor<3xf32> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy_from_stats C2: a loss mask of another shape
func.func @accuracy_from_stats_c2_mask(%t: tensor<2xf32>, %k: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: the loss mask must be floating-point 2}}
  %a = mt.accuracy_from_stats %t, %t mask %k : tensor<3xf32> : tensor<2xf32>, tensor<2xf32> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// mt.accuracy_from_stats C3: a result that is not a scalar
func.func @accuracy_from_stats_c3_result(%t: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C3: the result must be tensor<f32>}}
  %a = mt.accuracy_from_stats %t, %t : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mt.split_heads
//===----------------------------------------------------------------------===//

// -----

// mt.split_heads C1: a rank-4 input
func.func @split_heads_c1_rank(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C1: the input must be [batch, seq, hidden], got 'tensor<2x8x16x4xf32>'}}
  %h = mt.split_heads %x {num_heads = 8 : i64} : tensor<2x8x16x4xf32> -> tensor<2x8x16x4xf32>
  return %h : tensor<2x8x16x4xf32>
}

// -----

// mt.split_heads C2: num_heads does not divide hidden
func.func @split_heads_c2_not_divisible(%x: tensor<2x16x32xf32>) -> tensor<2x5x16x6xf32> {
  // expected-error @+1 {{violates C2: num_heads 5 must be >= 1 and divide hidden 32}}
  %h = mt.split_heads %x {num_heads = 5 : i64} : tensor<2x16x32xf32> -> tensor<2x5x16x6xf32>
  return %h : tensor<2x5x16x6xf32>
}

// -----

// mt.split_heads C2: zero heads
func.func @split_heads_c2_zero_heads(%x: tensor<2x16x?xf32>) -> tensor<2x0x16x?xf32> {
  // expected-error @+1 {{violates C2: num_heads 0 must be >= 1 and divide hidden ?}}
  %h = mt.split_heads %x {num_heads = 0 : i64} : tensor<2x16x?xf32> -> tensor<2x0x16x?xf32>
  return %h : tensor<2x0x16x?xf32>
}

// -----

// mt.split_heads C3: the result keeps [batch, seq, heads, head_dim] order
func.func @split_heads_c3_result(%x: tensor<2x16x32xf32>) -> tensor<2x16x8x4xf32> {
  // expected-error @+1 {{violates C3: the result must be 2x8x16x4 [batch, heads, seq, head_dim], got 'tensor<2x16x8x4xf32>'}}
  %h = mt.split_heads %x {num_heads = 8 : i64} : tensor<2x16x32xf32> -> tensor<2x16x8x4xf32>
  return %h : tensor<2x16x8x4xf32>
}

//===----------------------------------------------------------------------===//
// mt.merge_heads
//===----------------------------------------------------------------------===//

// -----

// mt.merge_heads C1: a rank-3 input
func.func @merge_heads_c1_rank(%x: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  // expected-error @+1 {{violates C1: the input must be [batch, heads, seq, head_dim], got 'tensor<2x16x32xf32>'}}
  %m = mt.merge_heads %x : tensor<2x16x32xf32> -> tensor<2x16x32xf32>
  return %m : tensor<2x16x32xf32>
}

// -----

// mt.merge_heads C2: the result's hidden size is not heads * head_dim
func.func @merge_heads_c2_result(%x: tensor<2x8x16x4xf32>) -> tensor<2x16x16xf32> {
  // expected-error @+1 {{violates C2: the result must be 2x16x32 [batch, seq, heads*head_dim], got 'tensor<2x16x16xf32>'}}
  %m = mt.merge_heads %x : tensor<2x8x16x4xf32> -> tensor<2x16x16xf32>
  return %m : tensor<2x16x16xf32>
}

// -----

// mt.merge_heads C2: the result has another element type
func.func @merge_heads_c2_result_element_type(%x: tensor<2x8x16x4xf32>) -> tensor<2x16x32xf16> {
  // expected-error @+1 {{violates C2: the result must be 2x16x32 [batch, seq, heads*head_dim], got 'tensor<2x16x32xf16>'}}
  %m = mt.merge_heads %x : tensor<2x8x16x4xf32> -> tensor<2x16x32xf16>
  return %m : tensor<2x16x32xf16>
}

//===----------------------------------------------------------------------===//
// mt.attention_scores
//===----------------------------------------------------------------------===//

// -----

// mt.attention_scores C1: a rank-3 query
func.func @attention_scores_c1_rank(%q: tensor<2x16x4xf32>, %k: tensor<2x2x16x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C1: operands must be rank-4 floating-point tensors of one element type, got 'tensor<2x16x4xf32>' and 'tensor<2x2x16x4xf32>'}}
  %s = mt.attention_scores %q, %k : tensor<2x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C1: query and key of different element types
func.func @attention_scores_c1_element_type(%q: tensor<2x8x16x4xf32>, %k: tensor<2x2x16x4xbf16>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C1: operands must be rank-4 floating-point tensors of one element type}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<2x2x16x4xbf16> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C2: query and key disagree in batch
func.func @attention_scores_c2_batch(%q: tensor<2x8x16x4xf32>, %k: tensor<3x2x16x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: query and key must agree in batch and head_dim}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<3x2x16x4xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C2: query and key disagree in head_dim
func.func @attention_scores_c2_head_dim(%q: tensor<2x8x16x4xf32>, %k: tensor<2x2x16x8xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: query and key must agree in batch and head_dim}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<2x2x16x8xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C3: 8 query heads over 3 key heads
func.func @attention_scores_c3_head_groups(%q: tensor<2x8x16x4xf32>, %k: tensor<2x3x16x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: 8 query heads do not group evenly over 3 key/value heads}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<2x3x16x4xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C3: no key heads
func.func @attention_scores_c3_zero_key_heads(%q: tensor<2x8x16x4xf32>, %k: tensor<2x0x16x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: 8 query heads do not group evenly over 0 key/value heads}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<2x0x16x4xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

// -----

// mt.attention_scores C4: the result's key dimension differs from the key's sequence
func.func @attention_scores_c4_result(%q: tensor<2x8x16x4xf32>, %k: tensor<2x2x12x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C4: the result must be 2x8x16x12 [batch, heads, queries, keys], got 'tensor<2x8x16x16xf32>'}}
  %s = mt.attention_scores %q, %k : tensor<2x8x16x4xf32>, tensor<2x2x12x4xf32> -> tensor<2x8x16x16xf32>
  return %s : tensor<2x8x16x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.attention_context
//===----------------------------------------------------------------------===//

// -----

// mt.attention_context C1: integer probabilities
func.func @attention_context_c1_integer(%p: tensor<2x8x16x16xi32>, %v: tensor<2x2x16x4xi32>) -> tensor<2x8x16x4xi32> {
  // expected-error @+1 {{violates C1: operands must be rank-4 floating-point tensors of one element type, got 'tensor<2x8x16x16xi32>' and 'tensor<2x2x16x4xi32>'}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xi32>, tensor<2x2x16x4xi32> -> tensor<2x8x16x4xi32>
  return %c : tensor<2x8x16x4xi32>
}

// -----

// mt.attention_context C1: a rank-3 value
func.func @attention_context_c1_rank(%p: tensor<2x8x16x16xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C1: operands must be rank-4 floating-point tensors of one element type}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x16x4xf32>
  return %c : tensor<2x8x16x4xf32>
}

// -----

// mt.attention_context C2: probs' keys differ from value's sequence
func.func @attention_context_c2_keys(%p: tensor<2x8x16x16xf32>, %v: tensor<2x2x12x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C2: probs and value must agree in batch and keys}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xf32>, tensor<2x2x12x4xf32> -> tensor<2x8x16x4xf32>
  return %c : tensor<2x8x16x4xf32>
}

// -----

// mt.attention_context C2: probs and value disagree in batch
func.func @attention_context_c2_batch(%p: tensor<2x8x16x16xf32>, %v: tensor<4x2x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C2: probs and value must agree in batch and keys}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xf32>, tensor<4x2x16x4xf32> -> tensor<2x8x16x4xf32>
  return %c : tensor<2x8x16x4xf32>
}

// -----

// mt.attention_context C3: 8 query heads over 3 value heads
func.func @attention_context_c3_head_groups(%p: tensor<2x8x16x16xf32>, %v: tensor<2x3x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C3: 8 query heads do not group evenly over 3 key/value heads}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xf32>, tensor<2x3x16x4xf32> -> tensor<2x8x16x4xf32>
  return %c : tensor<2x8x16x4xf32>
}

// -----

// mt.attention_context C4: the result's head_dim differs from value's
func.func @attention_context_c4_result(%p: tensor<2x8x16x16xf32>, %v: tensor<2x2x16x4xf32>) -> tensor<2x8x16x8xf32> {
  // expected-error @+1 {{violates C4: the result must be 2x8x16x4 [batch, heads, queries, head_dim], got 'tensor<2x8x16x8xf32>'}}
  %c = mt.attention_context %p, %v : tensor<2x8x16x16xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x8xf32>
  return %c : tensor<2x8x16x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.rotary
//===----------------------------------------------------------------------===//

// -----

// mt.rotary C1: a rank-3 input
func.func @rotary_c1_rank(%x: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  // expected-error @+1 {{violates C1: the input must be floating-point [batch, heads, seq, head_dim], got 'tensor<2x16x4xf32>'}}
  %y = mt.rotary %x : tensor<2x16x4xf32>
  return %y : tensor<2x16x4xf32>
}

// -----

// mt.rotary C1: an integer input
func.func @rotary_c1_integer(%x: tensor<2x8x16x4xi32>) -> tensor<2x8x16x4xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point [batch, heads, seq, head_dim], got 'tensor<2x8x16x4xi32>'}}
  %y = mt.rotary %x : tensor<2x8x16x4xi32>
  return %y : tensor<2x8x16x4xi32>
}

// -----

// mt.rotary C2: an odd rotary_dim
func.func @rotary_c2_odd_rotary_dim(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C2: the rotary dimension must be even, >= 2 and <= head_dim 4, got 3}}
  %y = mt.rotary %x {rotary_dim = 3 : i64} : tensor<2x8x16x4xf32>
  return %y : tensor<2x8x16x4xf32>
}

// -----

// mt.rotary C2: rotary_dim past head_dim
func.func @rotary_c2_rotary_dim_too_large(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C2: the rotary dimension must be even, >= 2 and <= head_dim 4, got 8}}
  %y = mt.rotary %x {rotary_dim = 8 : i64} : tensor<2x8x16x4xf32>
  return %y : tensor<2x8x16x4xf32>
}

// -----

// mt.rotary C2: an odd head_dim with the default rotary_dim
func.func @rotary_c2_odd_head_dim(%x: tensor<2x8x16x5xf32>) -> tensor<2x8x16x5xf32> {
  // expected-error @+1 {{violates C2: the rotary dimension must be even, >= 2 and <= head_dim 5, got 5}}
  %y = mt.rotary %x : tensor<2x8x16x5xf32>
  return %y : tensor<2x8x16x5xf32>
}

// -----

// mt.rotary C3: a base of 0
func.func @rotary_c3_base(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C3: base must be positive and finite, got 0}}
  %y = mt.rotary %x {base = 0.0 : f64} : tensor<2x8x16x4xf32>
  return %y : tensor<2x8x16x4xf32>
}

// -----

// mt.rotary C4: a negative position offset
func.func @rotary_c4_negative_offset(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C4: position_offset must be >= 0, got -1}}
  %y = mt.rotary %x {position_offset = -1 : i64} : tensor<2x8x16x4xf32>
  return %y : tensor<2x8x16x4xf32>
}

// -----

// mt.rotary C5: a run-time position that is not tensor<i64>
func.func @rotary_c5_position(%x: tensor<2x8x1x4xf32>, %pos: tensor<i32>) -> tensor<2x8x1x4xf32> {
  // expected-error @+1 {{violates C5: the position must be tensor<i64>, or one i64 per row of the batch, got 'tensor<i32>' for input 'tensor<2x8x1x4xf32>'}}
  %y = mt.rotary %x at %pos : tensor<i32> : tensor<2x8x1x4xf32>
  return %y : tensor<2x8x1x4xf32>
}

// -----

// mt.rotary C5: positions per row, but not one for each row
func.func @rotary_c5_rows(%x: tensor<2x8x1x4xf32>, %pos: tensor<4xi64>) -> tensor<2x8x1x4xf32> {
  // expected-error @+1 {{violates C5: the position must be tensor<i64>, or one i64 per row of the batch, got 'tensor<4xi64>' for input 'tensor<2x8x1x4xf32>'}}
  %y = mt.rotary %x at %pos : tensor<4xi64> : tensor<2x8x1x4xf32>
  return %y : tensor<2x8x1x4xf32>
}

// -----

// mt.rotary C2: an explicit rotary_dim equal to the dynamic-size sentinel is still checked
func.func @rotary_c2_sentinel_rotary_dim(%x: tensor<2x8x16x4xf32>) -> tensor<2x8x16x4xf32> {
  // expected-error @+1 {{violates C2: the rotary dimension must be even}}
  %y = mt.rotary %x {rotary_dim = -9223372036854775808 : i64} : tensor<2x8x16x4xf32>
  return %y : tensor<2x8x16x4xf32>
}

// -----

// mt.alibi C2: a negative head count
func.func @alibi_c2_negative_heads(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: num_heads must be >= 1}}
  %y = mt.alibi %x {num_heads = -1 : i64} : tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.cross_entropy C5: a negative num_classes with a dynamic class dimension
func.func @cross_entropy_c5_negative_dynamic(%l: tensor<2x?xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, ?], got -3}}
  %loss = mt.cross_entropy %l, %y {num_classes = -3 : i64} : tensor<2x?xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// mt.linear C5: f8 is not a supported float type
func.func @linear_c5_f8(%x: tensor<2x8xf8E4M3FN>, %w: tensor<4x8xf8E4M3FN>) -> tensor<2x4xf8E4M3FN> {
  // expected-error @+1 {{violates C5}}
  %y = mt.linear %x, %w : tensor<2x8xf8E4M3FN>, tensor<4x8xf8E4M3FN> -> tensor<2x4xf8E4M3FN>
  return %y : tensor<2x4xf8E4M3FN>
}

//===----------------------------------------------------------------------===//
// mt.alibi
//===----------------------------------------------------------------------===//

// -----

// mt.alibi C1: a rank-3 input
func.func @alibi_c1_rank(%x: tensor<8x16x16xf32>) -> tensor<8x16x16xf32> {
  // expected-error @+1 {{violates C1: the input must be floating-point [batch, heads, queries, keys], got 'tensor<8x16x16xf32>'}}
  %y = mt.alibi %x {num_heads = 8 : i64} : tensor<8x16x16xf32>
  return %y : tensor<8x16x16xf32>
}

// -----

// mt.alibi C1: an integer input
func.func @alibi_c1_integer(%x: tensor<2x8x16x16xi32>) -> tensor<2x8x16x16xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point [batch, heads, queries, keys], got 'tensor<2x8x16x16xi32>'}}
  %y = mt.alibi %x {num_heads = 8 : i64} : tensor<2x8x16x16xi32>
  return %y : tensor<2x8x16x16xi32>
}

// -----

// mt.alibi C2: fewer model heads than the heads present
func.func @alibi_c2_too_few_heads(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: num_heads must be >= 1 and at least the 8 heads present, got 4}}
  %y = mt.alibi %x {num_heads = 4 : i64} : tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.alibi C4: a shard index of i32
func.func @alibi_c4_shard_type(%x: tensor<2x4x16x16xf32>, %i: tensor<i32>) -> tensor<2x4x16x16xf32> {
  // expected-error @+1 {{violates C4: the shard index must be tensor<i64>, got 'tensor<i32>'}}
  %y = mt.alibi %x shard %i : tensor<i32> {num_heads = 8 : i64} : tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// -----

// mt.alibi C5: a shard of heads that do not divide the model's
func.func @alibi_c5_uneven_shard(%x: tensor<2x4x16x16xf32>, %i: tensor<i64>) -> tensor<2x4x16x16xf32> {
  // expected-error @+1 {{violates C5: with a shard index, the 4 heads present must divide num_heads 6}}
  %y = mt.alibi %x shard %i : tensor<i64> {num_heads = 6 : i64} : tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// -----

// mt.alibi C2: zero heads
func.func @alibi_c2_zero_heads(%x: tensor<2x?x16x16xf32>) -> tensor<2x?x16x16xf32> {
  // expected-error @+1 {{violates C2: num_heads must be >= 1 and at least the ? heads present, got 0}}
  %y = mt.alibi %x {num_heads = 0 : i64} : tensor<2x?x16x16xf32>
  return %y : tensor<2x?x16x16xf32>
}

// -----

// mt.alibi C3: a position that is not tensor<i64>
func.func @alibi_c3_position(%x: tensor<2x4x1x16xf32>, %pos: tensor<2xi64>) -> tensor<2x4x1x16xf32> {
  // expected-error @+1 {{violates C3: the position must be tensor<i64>, got 'tensor<2xi64>'}}
  %y = mt.alibi %x position %pos : tensor<2xi64> {num_heads = 4 : i64} : tensor<2x4x1x16xf32>
  return %y : tensor<2x4x1x16xf32>
}

// -----

// mt.alibi C6: a slope scale that is not positive
func.func @alibi_c6_slope_scale(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{violates C6: slope_scale must be positive and finite, got 0}}
  %y = mt.alibi %x {num_heads = 4 : i64, slope_scale = 0.0 : f64} : tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.all_reduce
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_reduce C1: the mesh does not exist
func.func @all_reduce_c1_unknown_mesh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  %y = mt.all_reduce %x on @nomesh axes = ["tp"] reduction = sum : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_reduce C2: the group names an axis the mesh lacks
func.func @all_reduce_c2_unknown_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis 'sp'}}
  %y = mt.all_reduce %x on @mesh axes = ["sp"] reduction = sum : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_reduce C2: the group names no axis
func.func @all_reduce_c2_empty_group(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: the group names no mesh axis}}
  %y = mt.all_reduce %x on @mesh axes = [] reduction = sum : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_reduce C2: the group names an axis twice
func.func @all_reduce_c2_repeated_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: mesh axis 'tp' is named twice}}
  %y = mt.all_reduce %x on @mesh axes = ["tp", "tp"] reduction = max : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.all_gather
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C1: the mesh does not exist
func.func @all_gather_c1_unknown_mesh(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  %y = mt.all_gather %x on @nomesh axes = ["tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C2: the group names an axis the mesh lacks
func.func @all_gather_c2_unknown_axis(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis 'sp'}}
  %y = mt.all_gather %x on @mesh axes = ["sp"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C2: the group names no axis
func.func @all_gather_c2_empty_group(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: the group names no mesh axis}}
  %y = mt.all_gather %x on @mesh axes = [] dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C3: dim past the rank
func.func @all_gather_c3_dim(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{violates C3: dim 2 is outside rank 2}}
  %y = mt.all_gather %x on @mesh axes = ["tp"] dim = 2 : tensor<4x8xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C4: the result is not the input with dim grown by the group size
func.func @all_gather_c4_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C4: over a group of 2 ranks the result must be 4x16 of 'f32', got 'tensor<4x8xf32>'}}
  %y = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.all_gather C4: the result has another element type
func.func @all_gather_c4_result_element_type(%x: tensor<4x8xf32>) -> tensor<4x32xf16> {
  // expected-error @+1 {{violates C4: over a group of 4 ranks the result must be 4x32 of 'f32', got 'tensor<4x32xf16>'}}
  %y = mt.all_gather %x on @mesh axes = ["dp", "tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

//===----------------------------------------------------------------------===//
// mt.reduce_scatter
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C1: the mesh does not exist
func.func @reduce_scatter_c1_unknown_mesh(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  %y = mt.reduce_scatter %x on @nomesh axes = ["tp"] dim = 1 reduction = sum : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C2: the group names an axis the mesh lacks
func.func @reduce_scatter_c2_unknown_axis(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis 'pp'}}
  %y = mt.reduce_scatter %x on @mesh axes = ["pp"] dim = 1 reduction = sum : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C2: the group names an axis twice
func.func @reduce_scatter_c2_repeated_axis(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{violates C2: mesh axis 'dp' is named twice}}
  %y = mt.reduce_scatter %x on @mesh axes = ["dp", "dp"] dim = 1 reduction = sum : tensor<4x8xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C3: a negative dim
func.func @reduce_scatter_c3_dim(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{violates C3: dim -1 is outside rank 2}}
  %y = mt.reduce_scatter %x on @mesh axes = ["tp"] dim = -1 reduction = sum : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C4: a dimension of 3 does not scatter over 2 ranks
func.func @reduce_scatter_c4_uneven(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{violates C4: dimension 1 of size 3 does not split evenly over 2 ranks}}
  %y = mt.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<4x3xf32> -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.reduce_scatter C4: the result is not the input with dim shrunk by the group size
func.func @reduce_scatter_c4_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C4: over a group of 2 ranks the result must be 4x4 of 'f32', got 'tensor<4x8xf32>'}}
  %y = mt.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.collective_wait
//===----------------------------------------------------------------------===//

// -----

// mt.collective_wait C1: the value does not come from a collective that can be split
func.func @collective_wait_c1_not_a_collective(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: waits for a value that no mt.all_reduce, mt.all_gather or mt.reduce_scatter of the same block produces}}
  %y = mt.collective_wait %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.collective_wait C1: the collective is in another block
func.func @collective_wait_c1_other_block(%x: tensor<4x8xf32>, %z: tensor<4x16xf32>, %c: i1) -> tensor<4x16xf32> {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  %r = scf.if %c -> tensor<4x16xf32> {
    // expected-error @+1 {{violates C1: waits for a value that no mt.all_reduce, mt.all_gather or mt.reduce_scatter of the same block produces}}
    %y = mt.collective_wait %g : tensor<4x16xf32>
    scf.yield %y : tensor<4x16xf32>
  } else {
    scf.yield %z : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]

// mt.collective_wait C2: the result is also read before the wait
func.func @collective_wait_c2_other_use(%x: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  // expected-error @+1 {{violates C2: the collective's result has other uses than this wait (they could read it before it is complete)}}
  %y = mt.collective_wait %g : tensor<4x16xf32>
  return %g, %y : tensor<4x16xf32>, tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.send
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.send C1: the mesh does not exist
func.func @send_c1_unknown_mesh(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  mt.send %x on @nomesh axis = "pp" offset = 1 channel = 0 : tensor<4x8xf32>
  return
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.send C2: the axis is not one of the mesh's
func.func @send_c2_unknown_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis 'dp'}}
  mt.send %x on @mesh axis = "dp" offset = 1 channel = 0 : tensor<4x8xf32>
  return
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.send C3: an offset of 0 sends to itself
func.func @send_c3_zero_offset(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{violates C3: offset 0 must be non-zero and smaller in magnitude than the size 4 of axis 'pp'}}
  mt.send %x on @mesh axis = "pp" offset = 0 channel = 0 : tensor<4x8xf32>
  return
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.send C3: an offset as large as the axis has no peer anywhere
func.func @send_c3_offset_too_large(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{violates C3: offset 4 must be non-zero and smaller in magnitude than the size 4 of axis 'pp'}}
  mt.send %x on @mesh axis = "pp" offset = 4 channel = 0 : tensor<4x8xf32>
  return
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.send C4: a negative channel
func.func @send_c4_channel(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{violates C4: channel must be >= 0, got -1}}
  mt.send %x on @mesh axis = "pp" offset = 1 channel = -1 : tensor<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.recv
//===----------------------------------------------------------------------===//

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.recv C1: the mesh does not exist
func.func @recv_c1_unknown_mesh() -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C1: @nomesh does not name an mt.mesh}}
  %y = mt.recv on @nomesh axis = "pp" offset = -1 channel = 0 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.recv C2: the axis is not one of the mesh's
func.func @recv_c2_unknown_axis() -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis ''}}
  %y = mt.recv on @mesh axis = "" offset = -1 channel = 0 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.recv C3: a negative offset as large as the axis
func.func @recv_c3_offset_too_large(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: offset -2 must be non-zero and smaller in magnitude than the size 2 of axis 'tp'}}
  %y = mt.recv on @mesh axis = "tp" offset = -2 channel = 0 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

mt.mesh @mesh axes = ["pp", "tp"] shape = [4, 2]

// mt.recv C4: a negative channel
func.func @recv_c4_channel() -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C4: channel must be >= 0, got -7}}
  %y = mt.recv on @mesh axis = "pp" offset = -1 channel = -7 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.zeros
//===----------------------------------------------------------------------===//

// -----

// mt.zeros C1: a dynamic result
func.func @zeros_c1_dynamic_shape() -> tensor<?x8xf32> {
  // expected-error @+1 {{violates C1: the result must have a static shape, got 'tensor<?x8xf32>'}}
  %z = mt.zeros : tensor<?x8xf32>
  return %z : tensor<?x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.reshape
//===----------------------------------------------------------------------===//

// -----

// mt.reshape C1: the result has another element type
func.func @reshape_c1_element_type(%x: tensor<2x8xf32>) -> tensor<16xf16> {
  // expected-error @+1 {{violates C1: input and result must share an element type}}
  %y = mt.reshape %x : tensor<2x8xf32> -> tensor<16xf16>
  return %y : tensor<16xf16>
}

// -----

// mt.reshape C2: the element count changes
func.func @reshape_c2_element_count(%x: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C2: the element count changes from 16 to 32}}
  %y = mt.reshape %x : tensor<2x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.convert
//===----------------------------------------------------------------------===//

// -----

// mt.convert C1: the shape changes
func.func @convert_c1_shape(%x: tensor<2x8xf32>) -> tensor<16xbf16> {
  // expected-error @+1 {{violates C1: input and result must have one shape, got 'tensor<2x8xf32>' and 'tensor<16xbf16>'}}
  %y = mt.convert %x : tensor<2x8xf32> -> tensor<16xbf16>
  return %y : tensor<16xbf16>
}

// -----

// mt.convert C2: an integer tensor
func.func @convert_c2_integer(%x: tensor<2x8xi32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{violates C2: input and result must be float tensors, got 'tensor<2x8xi32>' and 'tensor<2x8xbf16>'}}
  %y = mt.convert %x : tensor<2x8xi32> -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

//===----------------------------------------------------------------------===//
// mt.concat
//===----------------------------------------------------------------------===//

// -----

// mt.concat C1: dim past the rank
func.func @concat_c1_dim_too_large(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C1: dim 2 is outside rank 2}}
  %c = mt.concat %a, %b {dim = 2 : i64} : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C1: a negative dim
func.func @concat_c1_dim_negative(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C1: dim -1 is outside rank 2}}
  %c = mt.concat %a, %b {dim = -1 : i64} : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C1: no input at all (only the generic form can write it)
func.func @concat_c1_no_inputs() -> tensor<4xf32> {
  // expected-error @+1 {{violates C1: expected at least one input}}
  %c = "mt.concat"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// mt.concat C2: inputs of different ranks
func.func @concat_c2_rank(%a: tensor<2x8xf32>, %b: tensor<2x8x1xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C2: inputs must agree in rank, element type and every dimension but 1, got 'tensor<2x8xf32>' and 'tensor<2x8x1xf32>'}}
  %c = mt.concat %a, %b {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x8x1xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C2: inputs disagree in a dimension other than dim
func.func @concat_c2_other_dim(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C2: inputs must agree in rank, element type and every dimension but 1, got 'tensor<2x8xf32>' and 'tensor<3x8xf32>'}}
  %c = mt.concat %a, %b {dim = 1 : i64} : tensor<2x8xf32>, tensor<3x8xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C2: inputs of different element types
func.func @concat_c2_element_type(%a: tensor<2x8xf32>, %b: tensor<2x8xbf16>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C2: inputs must agree in rank, element type and every dimension but 1, got 'tensor<2x8xf32>' and 'tensor<2x8xbf16>'}}
  %c = mt.concat %a, %b {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x8xbf16> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C3: the result's dim is not the sum of the inputs'
func.func @concat_c3_result_shape(%a: tensor<2x8xf32>, %b: tensor<2x4xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C3: the result must be 2x12, got 'tensor<2x16xf32>'}}
  %c = mt.concat %a, %b {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// mt.concat C3: the result has another element type
func.func @concat_c3_result_element_type(%a: tensor<2x8xf32>, %b: tensor<2x4xf32>) -> tensor<2x12xf16> {
  // expected-error @+1 {{violates C3: the result must be 2x12, got 'tensor<2x12xf16>'}}
  %c = mt.concat %a, %b {dim = 1 : i64} : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<2x12xf16>
  return %c : tensor<2x12xf16>
}

//===----------------------------------------------------------------------===//
// mt.sum_to
//===----------------------------------------------------------------------===//

// -----

// mt.sum_to C1: the result has another element type
func.func @sum_to_c1_element_type(%x: tensor<2x16x8xf32>) -> tensor<8xbf16> {
  // expected-error @+1 {{violates C1: input and result must share an element type}}
  %y = mt.sum_to %x : tensor<2x16x8xf32> -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}

// -----

// mt.sum_to C2: the result is not a suffix of the input
func.func @sum_to_c2_not_suffix(%x: tensor<2x16x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: the result shape 2x8 must be a suffix of the input shape 2x16x8}}
  %y = mt.sum_to %x : tensor<2x16x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.sum_to C2: the result has a higher rank than the input
func.func @sum_to_c2_result_rank(%x: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: the result shape 2x8 must be a suffix of the input shape 8}}
  %y = mt.sum_to %x : tensor<8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.slice_layer
//===----------------------------------------------------------------------===//

// -----

// mt.slice_layer C1: a scalar input has no layer dimension
func.func @slice_layer_c1_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the input needs a static leading layer dimension, got 'tensor<f32>'}}
  %y = mt.slice_layer %x {layer = 0 : i64} : tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// mt.slice_layer C1: a dynamic number of layers
func.func @slice_layer_c1_dynamic_layers(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{violates C1: the input needs a static leading layer dimension, got 'tensor<?x8xf32>'}}
  %y = mt.slice_layer %x {layer = 0 : i64} : tensor<?x8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// mt.slice_layer C2: a layer index past the last layer
func.func @slice_layer_c2_layer_too_large(%x: tensor<3x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{violates C2: layer 3 is outside [0, 3)}}
  %y = mt.slice_layer %x {layer = 3 : i64} : tensor<3x8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// mt.slice_layer C2: a negative layer index
func.func @slice_layer_c2_layer_negative(%x: tensor<3x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{violates C2: layer -1 is outside [0, 3)}}
  %y = mt.slice_layer %x {layer = -1 : i64} : tensor<3x8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// mt.slice_layer C3: the result keeps the layer dimension
func.func @slice_layer_c3_result(%x: tensor<3x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{violates C3: the result must be 'tensor<8xf32>', got 'tensor<1x8xf32>'}}
  %y = mt.slice_layer %x {layer = 0 : i64} : tensor<3x8xf32> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// mt.slice_layer C3: the result has another element type
func.func @slice_layer_c3_result_element_type(%x: tensor<3x8xf32>) -> tensor<8xf16> {
  // expected-error @+1 {{violates C3: the result must be 'tensor<8xf32>', got 'tensor<8xf16>'}}
  %y = mt.slice_layer %x {layer = 0 : i64} : tensor<3x8xf32> -> tensor<8xf16>
  return %y : tensor<8xf16>
}

//===----------------------------------------------------------------------===//
// mt.stack_layers
//===----------------------------------------------------------------------===//

// -----

// mt.stack_layers C1: inputs of different types
func.func @stack_layers_c1_input_types(%a: tensor<8xf32>, %b: tensor<9xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C1: every input must have one type, got 'tensor<8xf32>' and 'tensor<9xf32>'}}
  %y = mt.stack_layers %a, %b : tensor<8xf32>, tensor<9xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.stack_layers C1: no input at all (only the generic form can write it)
func.func @stack_layers_c1_no_inputs() -> tensor<0xf32> {
  // expected-error @+1 {{violates C1: expected at least one input}}
  %y = "mt.stack_layers"() : () -> tensor<0xf32>
  return %y : tensor<0xf32>
}

// -----

// mt.stack_layers C2: the leading dimension is not the number of inputs
func.func @stack_layers_c2_layer_count(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{violates C2: the result must be 'tensor<2x8xf32>', got 'tensor<3x8xf32>'}}
  %y = mt.stack_layers %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// mt.stack_layers C2: the result has another element type
func.func @stack_layers_c2_result_element_type(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{violates C2: the result must be 'tensor<2x8xf32>', got 'tensor<2x8xbf16>'}}
  %y = mt.stack_layers %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

//===----------------------------------------------------------------------===//
// mt.embedding_grad
//===----------------------------------------------------------------------===//

// -----

// mt.embedding_grad C1: floating-point ids
func.func @embedding_grad_c1_ids_float(%g: tensor<2x16x8xf32>, %ids: tensor<2x16xf32>) -> tensor<100x8xf32> {
  // expected-error @+1 {{violates C1: ids must be i32 or i64, got 'tensor<2x16xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16x8xf32>, tensor<2x16xf32> -> tensor<100x8xf32>
  return %d : tensor<100x8xf32>
}

// -----

// mt.embedding_grad C2: grad's leading dimensions differ from the ids' shape
func.func @embedding_grad_c2_grad_shape(%g: tensor<2x15x8xf32>, %ids: tensor<2x16xi32>) -> tensor<100x8xf32> {
  // expected-error @+1 {{violates C2: grad must be floating-point [2x16, hidden], got 'tensor<2x15x8xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x15x8xf32>, tensor<2x16xi32> -> tensor<100x8xf32>
  return %d : tensor<100x8xf32>
}

// -----

// mt.embedding_grad C2: grad lacks the hidden dimension
func.func @embedding_grad_c2_grad_rank(%g: tensor<2x16xf32>, %ids: tensor<2x16xi64>) -> tensor<100x16xf32> {
  // expected-error @+1 {{violates C2: grad must be floating-point [2x16, hidden], got 'tensor<2x16xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16xf32>, tensor<2x16xi64> -> tensor<100x16xf32>
  return %d : tensor<100x16xf32>
}

// -----

// mt.embedding_grad C2: an integer grad
func.func @embedding_grad_c2_grad_integer(%g: tensor<2x16x8xi32>, %ids: tensor<2x16xi32>) -> tensor<100x8xi32> {
  // expected-error @+1 {{violates C2: grad must be floating-point [2x16, hidden], got 'tensor<2x16x8xi32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16x8xi32>, tensor<2x16xi32> -> tensor<100x8xi32>
  return %d : tensor<100x8xi32>
}

// -----

// mt.embedding_grad C3: the table's hidden size differs from grad's
func.func @embedding_grad_c3_hidden(%g: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>) -> tensor<100x9xf32> {
  // expected-error @+1 {{violates C3: the result must be the table [vocab, 8] of 'f32', got 'tensor<100x9xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<100x9xf32>
  return %d : tensor<100x9xf32>
}

// -----

// mt.embedding_grad C3: a rank-3 result
func.func @embedding_grad_c3_rank(%g: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C3: the result must be the table [vocab, 8] of 'f32', got 'tensor<2x16x8xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  return %d : tensor<2x16x8xf32>
}

// -----

// mt.embedding_grad C3: the result has another element type
func.func @embedding_grad_c3_element_type(%g: tensor<2x16x8xbf16>, %ids: tensor<2x16xi32>) -> tensor<100x8xf32> {
  // expected-error @+1 {{violates C3: the result must be the table [vocab, 8] of 'bf16', got 'tensor<100x8xf32>'}}
  %d = mt.embedding_grad %g[%ids] : tensor<2x16x8xbf16>, tensor<2x16xi32> -> tensor<100x8xf32>
  return %d : tensor<100x8xf32>
}

//===----------------------------------------------------------------------===//
// mt.position_embedding_grad
//===----------------------------------------------------------------------===//

// -----

// mt.position_embedding_grad C1: a rank-3 grad (batch not summed away)
func.func @position_embedding_grad_c1_rank(%g: tensor<2x16x8xf32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{violates C1: grad must be floating-point [seq, hidden], got 'tensor<2x16x8xf32>'}}
  %d = mt.position_embedding_grad %g : tensor<2x16x8xf32> -> tensor<32x8xf32>
  return %d : tensor<32x8xf32>
}

// -----

// mt.position_embedding_grad C1: an integer grad
func.func @position_embedding_grad_c1_integer(%g: tensor<16x8xi32>) -> tensor<32x8xi32> {
  // expected-error @+1 {{violates C1: grad must be floating-point [seq, hidden], got 'tensor<16x8xi32>'}}
  %d = mt.position_embedding_grad %g : tensor<16x8xi32> -> tensor<32x8xi32>
  return %d : tensor<32x8xi32>
}

// -----

// mt.position_embedding_grad C2: a table with fewer positions than the sequence
func.func @position_embedding_grad_c2_too_few_positions(%g: tensor<16x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{violates C2: the result must be the table [positions >= 16, 8], got 'tensor<8x8xf32>'}}
  %d = mt.position_embedding_grad %g : tensor<16x8xf32> -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// -----

// mt.position_embedding_grad C2: the table's hidden size differs from grad's
func.func @position_embedding_grad_c2_hidden(%g: tensor<16x8xf32>) -> tensor<32x4xf32> {
  // expected-error @+1 {{violates C2: the result must be the table [positions >= 16, 8], got 'tensor<32x4xf32>'}}
  %d = mt.position_embedding_grad %g : tensor<16x8xf32> -> tensor<32x4xf32>
  return %d : tensor<32x4xf32>
}

// -----

// mt.position_embedding_grad C2: the result has another element type
func.func @position_embedding_grad_c2_element_type(%g: tensor<16x8xf32>) -> tensor<32x8xf16> {
  // expected-error @+1 {{violates C2: the result must be the table [positions >= 16, 8], got 'tensor<32x8xf16>'}}
  %d = mt.position_embedding_grad %g : tensor<16x8xf32> -> tensor<32x8xf16>
  return %d : tensor<32x8xf16>
}

//===----------------------------------------------------------------------===//
// mt.layer_norm_grad
//===----------------------------------------------------------------------===//

// -----

// mt.layer_norm_grad C1: an integer input
func.func @layer_norm_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>, %g: tensor<8xi32>) {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-5 : f64} : tensor<2x8xi32>, tensor<8xi32>
  return
}

// -----

// mt.layer_norm_grad C1: a scalar input
func.func @layer_norm_grad_c1_scalar(%dy: tensor<f32>, %x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-5 : f64} : tensor<f32>, tensor<1xf32>
  return
}

// -----

// mt.layer_norm_grad C2: gamma of the wrong length
func.func @layer_norm_grad_c2_gamma(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<9xf32>) {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<9xf32>'}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<9xf32>
  return
}

// -----

// mt.layer_norm_grad C2: gamma of another element type
func.func @layer_norm_grad_c2_gamma_element_type(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<8xbf16>'}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<8xbf16>
  return
}

// -----

// mt.layer_norm_grad C3: epsilon of 0
func.func @layer_norm_grad_c3_epsilon(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{violates C3: epsilon must be positive, got 0}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 0.0 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

// -----

// mt.layer_norm_grad C4: a gradient added with `plus` of another type
func.func @layer_norm_grad_c4_plus(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<8xf32>, %ds: tensor<2x4xf32>) {
  // expected-error @+1 {{violates C4: the gradient added with `plus` must have the input's type 'tensor<2x8xf32>', got 'tensor<2x4xf32>'}}
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g plus %ds : tensor<2x4xf32> {epsilon = 1.0e-5 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.rms_norm_grad
//===----------------------------------------------------------------------===//

// -----

// mt.rms_norm_grad C1: an integer input
func.func @rms_norm_grad_c1_integer(%dy: tensor<2x8xi64>, %x: tensor<2x8xi64>, %g: tensor<8xi64>) {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi64>'}}
  %dx, %dg = mt.rms_norm_grad %dy, %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x8xi64>, tensor<8xi64>
  return
}

// -----

// mt.rms_norm_grad C2: a rank-2 gamma
func.func @rms_norm_grad_c2_gamma_rank(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<1x8xf32>) {
  // expected-error @+1 {{violates C2: scale and shift must be [8] of 'f32', got 'tensor<1x8xf32>'}}
  %dx, %dg = mt.rms_norm_grad %dy, %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x8xf32>, tensor<1x8xf32>
  return
}

// -----

// mt.rms_norm_grad C3: a negative epsilon
func.func @rms_norm_grad_c3_epsilon(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{violates C3: epsilon must be positive, got -1}}
  %dx, %dg = mt.rms_norm_grad %dy, %x, %g {epsilon = -1.0e-6 : f64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.gelu_grad
//===----------------------------------------------------------------------===//

// -----

// mt.bias_gelu_grad C1: an integer input
func.func @bias_gelu_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>, %b: tensor<8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x8xi32>'}}
  %dx = mt.bias_gelu_grad %dy, %x, %b approximate = tanh : tensor<2x8xi32>, tensor<8xi32>
  return %dx : tensor<2x8xi32>
}

// -----

// mt.bias_gelu_grad C2: a bias of another element type
func.func @bias_gelu_grad_c2_bias_type(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %b: tensor<8xbf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C2: the bias must be [8] of 'f32' (the input's last dimension), got 'tensor<8xbf16>'}}
  %dx = mt.bias_gelu_grad %dy, %x, %b approximate = tanh : tensor<2x8xf32>, tensor<8xbf16>
  return %dx : tensor<2x8xf32>
}

// -----

// mt.gelu_grad C1: an integer input
func.func @gelu_grad_c1_integer(%dy: tensor<2x8xi32>, %x: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{violates C1: the input must be floating-point, got 'tensor<2x8xi32>'}}
  %dx = mt.gelu_grad %dy, %x approximate = tanh : tensor<2x8xi32>
  return %dx : tensor<2x8xi32>
}

//===----------------------------------------------------------------------===//
// mt.softmax_grad
//===----------------------------------------------------------------------===//

// -----

// mt.softmax_grad C1: an integer output
func.func @softmax_grad_c1_integer(%dp: tensor<2x16xi32>, %p: tensor<2x16xi32>) -> tensor<2x16xi32> {
  // expected-error @+1 {{violates C1: the output must be a floating-point tensor of rank >= 1, got 'tensor<2x16xi32>'}}
  %ds = mt.softmax_grad %dp, %p : tensor<2x16xi32>
  return %ds : tensor<2x16xi32>
}

// -----

// mt.softmax_grad C1: a scalar output
func.func @softmax_grad_c1_scalar(%dp: tensor<f32>, %p: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the output must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %ds = mt.softmax_grad %dp, %p : tensor<f32>
  return %ds : tensor<f32>
}

// -----

// mt.softmax_grad C2: a negative scale
func.func @softmax_grad_c2_negative_scale(%dp: tensor<2x16xf32>, %p: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C2: scale must be positive and finite, got -1}}
  %ds = mt.softmax_grad %dp, %p {scale = -1.0 : f64} : tensor<2x16xf32>
  return %ds : tensor<2x16xf32>
}

// -----

// mt.softmax_grad C2: a NaN scale
func.func @softmax_grad_c2_nan_scale(%dp: tensor<2x16xf32>, %p: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{violates C2: scale must be positive and finite, got nan}}
  %ds = mt.softmax_grad %dp, %p {scale = 0x7FF8000000000000 : f64} : tensor<2x16xf32>
  return %ds : tensor<2x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.attention_kv_grad
//===----------------------------------------------------------------------===//

// -----

// mt.attention_kv_grad C1: a rank-3 rhs
func.func @attention_kv_grad_c1_rank(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x16x4xf32>) -> tensor<2x2x16x4xf32> {
  // expected-error @+1 {{violates C1: operands and result must be rank-4 floating-point tensors of one element type}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x16x4xf32> -> tensor<2x2x16x4xf32>
  return %dk : tensor<2x2x16x4xf32>
}

// -----

// mt.attention_kv_grad C1: integer operands
func.func @attention_kv_grad_c1_integer(%ds: tensor<2x8x16x16xi32>, %q: tensor<2x8x16x4xi32>) -> tensor<2x2x16x4xi32> {
  // expected-error @+1 {{violates C1: operands and result must be rank-4 floating-point tensors of one element type}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xi32>, tensor<2x8x16x4xi32> -> tensor<2x2x16x4xi32>
  return %dk : tensor<2x2x16x4xi32>
}

// -----

// mt.attention_kv_grad C1: the result has another element type
func.func @attention_kv_grad_c1_result_element_type(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x8x16x4xf32>) -> tensor<2x2x16x4xf16> {
  // expected-error @+1 {{violates C1: operands and result must be rank-4 floating-point tensors of one element type}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x8x16x4xf32> -> tensor<2x2x16x4xf16>
  return %dk : tensor<2x2x16x4xf16>
}

// -----

// mt.attention_kv_grad C2: lhs and rhs disagree in heads
func.func @attention_kv_grad_c2_heads(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x4x16x4xf32>) -> tensor<2x2x16x4xf32> {
  // expected-error @+1 {{violates C2: lhs [batch, heads, queries, keys] and rhs [batch, heads, queries, head_dim] must agree in batch, heads and queries, got 'tensor<2x8x16x16xf32>' and 'tensor<2x4x16x4xf32>'}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x4x16x4xf32> -> tensor<2x2x16x4xf32>
  return %dk : tensor<2x2x16x4xf32>
}

// -----

// mt.attention_kv_grad C2: lhs and rhs disagree in queries
func.func @attention_kv_grad_c2_queries(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x8x12x4xf32>) -> tensor<2x2x16x4xf32> {
  // expected-error @+1 {{violates C2: lhs [batch, heads, queries, keys] and rhs [batch, heads, queries, head_dim] must agree in batch, heads and queries}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x8x12x4xf32> -> tensor<2x2x16x4xf32>
  return %dk : tensor<2x2x16x4xf32>
}

// -----

// mt.attention_kv_grad C3: 8 heads do not group over 3 key/value heads
func.func @attention_kv_grad_c3_head_groups(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x8x16x4xf32>) -> tensor<2x3x16x4xf32> {
  // expected-error @+1 {{violates C3: the result must be [batch, key heads dividing 8, 16, 4], got 'tensor<2x3x16x4xf32>'}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x8x16x4xf32> -> tensor<2x3x16x4xf32>
  return %dk : tensor<2x3x16x4xf32>
}

// -----

// mt.attention_kv_grad C3: no key/value heads
func.func @attention_kv_grad_c3_zero_heads(%ds: tensor<2x8x16x16xf32>, %q: tensor<2x8x16x4xf32>) -> tensor<2x0x16x4xf32> {
  // expected-error @+1 {{violates C3: the result must be [batch, key heads dividing 8, 16, 4], got 'tensor<2x0x16x4xf32>'}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x16xf32>, tensor<2x8x16x4xf32> -> tensor<2x0x16x4xf32>
  return %dk : tensor<2x0x16x4xf32>
}

// -----

// mt.attention_kv_grad C3: the result's sequence is lhs's queries, not its keys
func.func @attention_kv_grad_c3_keys(%ds: tensor<2x8x16x12xf32>, %q: tensor<2x8x16x4xf32>) -> tensor<2x2x16x4xf32> {
  // expected-error @+1 {{violates C3: the result must be [batch, key heads dividing 8, 12, 4], got 'tensor<2x2x16x4xf32>'}}
  %dk = mt.attention_kv_grad %ds, %q : tensor<2x8x16x12xf32>, tensor<2x8x16x4xf32> -> tensor<2x2x16x4xf32>
  return %dk : tensor<2x2x16x4xf32>
}

//===----------------------------------------------------------------------===//
// mt.cross_entropy_grad
//===----------------------------------------------------------------------===//

// -----

// mt.cross_entropy_grad C1: integer logits
func.func @cross_entropy_grad_c1_integer_logits(%d: tensor<f32>, %logits: tensor<2x16x100xi32>, %labels: tensor<2x16xi32>) -> tensor<2x16x100xi32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor [..., classes], got 'tensor<2x16x100xi32>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels : tensor<f32>, tensor<2x16x100xi32>, tensor<2x16xi32> -> tensor<2x16x100xi32>
  return %dl : tensor<2x16x100xi32>
}

// -----

// mt.cross_entropy_grad C2: labels of the wrong shape
func.func @cross_entropy_grad_c2_labels_shape(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x15xi64>) -> tensor<2x16x100xf32> {
  // expected-error @+1 {{violates C2: labels must be i32 or i64 [2x16], got 'tensor<2x15xi64>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels : tensor<f32>, tensor<2x16x100xf32>, tensor<2x15xi64> -> tensor<2x16x100xf32>
  return %dl : tensor<2x16x100xf32>
}

// -----

// mt.cross_entropy_grad C3: an integer loss mask
func.func @cross_entropy_grad_c3_integer_mask(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>, %mask: tensor<2x16xi32>) -> tensor<2x16x100xf32> {
  // expected-error @+1 {{violates C3: the loss mask must be floating-point [2x16], got 'tensor<2x16xi32>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels mask %mask : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32>, tensor<2x16xi32> -> tensor<2x16x100xf32>
  return %dl : tensor<2x16x100xf32>
}

// -----

// mt.cross_entropy_grad C4: a scalar result instead of the logits' gradient
func.func @cross_entropy_grad_c4_result(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<f32> {
  // expected-error @+1 {{violates C4: the result must have the logits' type 'tensor<2x16x100xf32>', got 'tensor<f32>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<f32>
  return %dl : tensor<f32>
}

// -----

// mt.cross_entropy_grad C5: num_classes past the last dimension
func.func @cross_entropy_grad_c5_num_classes_too_large(%d: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<2x16x100xf32> {
  // expected-error @+1 {{violates C5: num_classes must be in [1, 100], got 101}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels {num_classes = 101 : i64} : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<2x16x100xf32>
  return %dl : tensor<2x16x100xf32>
}

// -----

// mt.cross_entropy_grad C6: an f16 loss gradient
func.func @cross_entropy_grad_c6_grad_element_type(%d: tensor<f16>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<2x16x100xf32> {
  // expected-error @+1 {{violates C6: grad must be tensor<f32> (the loss's gradient), got 'tensor<f16>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels : tensor<f16>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<2x16x100xf32>
  return %dl : tensor<2x16x100xf32>
}

// -----

// mt.cross_entropy_grad C6: a per-token loss gradient instead of a scalar
func.func @cross_entropy_grad_c6_grad_rank(%d: tensor<2x16xf32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi32>) -> tensor<2x16x100xf32> {
  // expected-error @+1 {{violates C6: grad must be tensor<f32> (the loss's gradient), got 'tensor<2x16xf32>'}}
  %dl = mt.cross_entropy_grad %d, %logits, %labels : tensor<2x16xf32>, tensor<2x16x100xf32>, tensor<2x16xi32> -> tensor<2x16x100xf32>
  return %dl : tensor<2x16x100xf32>
}

// -----

// mt.adamw C1: an integer parameter
func.func @adamw_c1_integer(%p: tensor<4xi32>, %h: tensor<8xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{violates C1: the parameter and its state must be floating-point}}
  %a, %b, %c = mt.adamw %p, %p, %p, %p, %h : tensor<4xi32>, tensor<8xf32>
  return %a : tensor<4xi32>
}

// -----

// mt.adamw C2: a hyper-parameter vector of the wrong length
func.func @adamw_c2_hyper(%p: tensor<4xf32>, %h: tensor<7xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{violates C2: hyper must be tensor<8xf32>}}
  %a, %b, %c = mt.adamw %p, %p, %p, %p, %h : tensor<4xf32>, tensor<7xf32>
  return %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Tensor parallelism: shards, mesh coordinates, the vocab-parallel loss
//===----------------------------------------------------------------------===//

// -----

// mt.embedding C4: the shard index is not a tensor<i64>
func.func @embedding_c4_shard_type(%t: tensor<50x8xf32>, %ids: tensor<2x16xi32>, %i: tensor<i32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{violates C4: the shard index must be tensor<i64>, got 'tensor<i32>'}}
  %e = mt.embedding %t[%ids] shard %i : tensor<i32> : tensor<50x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  return %e : tensor<2x16x8xf32>
}

// -----

// mt.embedding_grad C4: the shard index is not a tensor<i64>
func.func @embedding_grad_c4_shard_type(%g: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>, %i: tensor<2xi64>) -> tensor<50x8xf32> {
  // expected-error @+1 {{violates C4: the shard index must be tensor<i64>}}
  %d = mt.embedding_grad %g[%ids] shard %i : tensor<2xi64> : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<50x8xf32>
  return %d : tensor<50x8xf32>
}

// -----

// mt.embedding_grad C5: an accumulator of another element type
func.func @embedding_grad_c5_plus_type(%g: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>, %acc: tensor<50x8xbf16>) -> tensor<50x8xf32> {
  // expected-error @+1 {{violates C5: the tensor added with `plus` must have the result's type 'tensor<50x8xf32>', got 'tensor<50x8xbf16>'}}
  %d = mt.embedding_grad %g[%ids] plus %acc : tensor<50x8xbf16> : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<50x8xf32>
  return %d : tensor<50x8xf32>
}

// -----

// mt.dropout C6: a shard index without shard_dim and shard_parts
func.func @dropout_c6_shard_without_dim(%x: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C6: shard (a tensor<i64>), shard_dim and shard_parts come together}}
  %y = mt.dropout %x shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.dropout C7: shard_dim outside the input's rank
func.func @dropout_c7_shard_dim(%x: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C7: shard_dim 2 must be a dimension of the rank-2 input}}
  %y = mt.dropout %x shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64, shard_dim = 2 : i64, shard_parts = 2 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// mt.vocab_parallel_max C1: integer logits
func.func @vocab_parallel_max_c1_logits(%l: tensor<2x8xi32>, %i: tensor<i64>) -> tensor<2xi32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor}}
  %m = mt.vocab_parallel_max %l[%i : tensor<i64>] {num_classes = 16 : i64} : tensor<2x8xi32> -> tensor<2xi32>
  return %m : tensor<2xi32>
}

// -----

// mt.vocab_parallel_max C2: the shard index is not a tensor<i64>
func.func @vocab_parallel_max_c2_shard(%l: tensor<2x8xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C2: the shard index must be tensor<i64>}}
  %m = mt.vocab_parallel_max %l[%i : tensor<i32>] {num_classes = 16 : i64} : tensor<2x8xf32> -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// -----

// mt.vocab_parallel_max C4: the result keeps the class dimension
func.func @vocab_parallel_max_c4_result(%l: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C4: per-token values must be 2 of 'f32'}}
  %m = mt.vocab_parallel_max %l[%i : tensor<i64>] {num_classes = 16 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %m : tensor<2x8xf32>
}

// -----

// mt.vocab_parallel_max C5: no classes
func.func @vocab_parallel_max_c5_classes(%l: tensor<2x8xf32>, %i: tensor<i64>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C5: num_classes must be >= 1, got 0}}
  %m = mt.vocab_parallel_max %l[%i : tensor<i64>] {num_classes = 0 : i64} : tensor<2x8xf32> -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// -----

// mt.vocab_parallel_stats C1: rank-0 logits
func.func @vocab_parallel_stats_c1_logits(%l: tensor<f32>, %i: tensor<i64>, %y: tensor<i32>, %m: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: logits must be a floating-point tensor}}
  %s, %t = mt.vocab_parallel_stats %l[%i : tensor<i64>], %y, %m {num_classes = 16 : i64} : tensor<f32>, tensor<i32>, tensor<f32> -> tensor<f32>, tensor<f32>
  return %s : tensor<f32>
}

// -----

// mt.vocab_parallel_stats C2: the shard index is not a tensor<i64>
func.func @vocab_parallel_stats_c2_shard(%l: tensor<2x8xf32>, %i: tensor<1xi64>, %y: tensor<2xi32>, %m: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C2: the shard index must be tensor<i64>}}
  %s, %t = mt.vocab_parallel_stats %l[%i : tensor<1xi64>], %y, %m {num_classes = 16 : i64} : tensor<2x8xf32>, tensor<2xi32>, tensor<2xf32> -> tensor<2xf32>, tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// mt.vocab_parallel_stats C3: labels of another shape
func.func @vocab_parallel_stats_c3_labels(%l: tensor<2x8xf32>, %i: tensor<i64>, %y: tensor<3xi32>, %m: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C3: labels must be i32 or i64 of shape 2}}
  %s, %t = mt.vocab_parallel_stats %l[%i : tensor<i64>], %y, %m {num_classes = 16 : i64} : tensor<2x8xf32>, tensor<3xi32>, tensor<2xf32> -> tensor<2xf32>, tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// mt.vocab_parallel_stats C4: a per-token result of another element type
func.func @vocab_parallel_stats_c4_result(%l: tensor<2x8xf32>, %i: tensor<i64>, %y: tensor<2xi32>, %m: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{violates C4: per-token values must be 2 of 'f32'}}
  %s, %t = mt.vocab_parallel_stats %l[%i : tensor<i64>], %y, %m {num_classes = 16 : i64} : tensor<2x8xf32>, tensor<2xi32>, tensor<2xf32> -> tensor<2xf64>, tensor<2xf32>
  return %s : tensor<2xf64>
}

// -----

// mt.vocab_parallel_stats C5: no classes
func.func @vocab_parallel_stats_c5_classes(%l: tensor<2x8xf32>, %i: tensor<i64>, %y: tensor<2xi32>, %m: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C5: num_classes must be >= 1, got -1}}
  %s, %t = mt.vocab_parallel_stats %l[%i : tensor<i64>], %y, %m {num_classes = -1 : i64} : tensor<2x8xf32>, tensor<2xi32>, tensor<2xf32> -> tensor<2xf32>, tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// mt.cross_entropy_from_stats C1: statistics of different types
func.func @cross_entropy_from_stats_c1_types(%s: tensor<2xf32>, %t: tensor<3xf32>, %m: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: sum_exp, label_logit and max must be one floating-point type}}
  %l = mt.cross_entropy_from_stats %s, %t, %m : tensor<2xf32>, tensor<3xf32>, tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy_from_stats C2: a loss mask of another shape
func.func @cross_entropy_from_stats_c2_mask(%s: tensor<2xf32>, %k: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{violates C2: the loss mask must be floating-point 2}}
  %l = mt.cross_entropy_from_stats %s, %s, %s mask %k : tensor<3xf32> : tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mt.cross_entropy_from_stats C3: a loss that is not a scalar
func.func @cross_entropy_from_stats_c3_result(%s: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C3: the result must be tensor<f32>}}
  %l = mt.cross_entropy_from_stats %s, %s, %s : tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %l : tensor<2xf32>
}

// -----

// mt.vocab_parallel_stats_grad C5: the result is not the logits' type
func.func @vocab_parallel_stats_grad_c5_result(%d: tensor<2xf32>, %l: tensor<2x8xf32>, %i: tensor<i64>, %y: tensor<2xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{violates C5: the result must be the logits' type}}
  %g = mt.vocab_parallel_stats_grad %d, %d, %l[%i : tensor<i64>], %y, %d {num_classes = 16 : i64} : tensor<2xf32>, tensor<2xf32>, tensor<2x8xf32>, tensor<2xi32>, tensor<2xf32> -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

// mt.vocab_parallel_stats_grad C6: no classes
func.func @vocab_parallel_stats_grad_c6_classes(%d: tensor<2xf32>, %l: tensor<2x8xf32>, %i: tensor<i64>, %y: tensor<2xi32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{violates C6: num_classes must be >= 1, got 0}}
  %g = mt.vocab_parallel_stats_grad %d, %d, %l[%i : tensor<i64>], %y, %d {num_classes = 0 : i64} : tensor<2xf32>, tensor<2xf32>, tensor<2x8xf32>, tensor<2xi32>, tensor<2xf32> -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

// mt.cross_entropy_from_stats_grad C1: the incoming gradient is not a scalar
func.func @cross_entropy_from_stats_grad_c1_grad(%d: tensor<2xf32>, %s: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{violates C1: grad must be a floating-point scalar}}
  %a, %b = mt.cross_entropy_from_stats_grad %d, %s : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>, tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

// mt.cross_entropy_from_stats_grad C2: integer statistics
func.func @cross_entropy_from_stats_grad_c2_sum(%d: tensor<f32>, %s: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{violates C2: sum_exp must be floating-point}}
  %a, %b = mt.cross_entropy_from_stats_grad %d, %s : tensor<f32>, tensor<2xi32> -> tensor<2xi32>, tensor<2xi32>
  return %a : tensor<2xi32>
}

// -----

// mt.cross_entropy_from_stats_grad C3: results of another type
func.func @cross_entropy_from_stats_grad_c3_results(%d: tensor<f32>, %s: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{violates C3: both results must be 'tensor<2xf32>'}}
  %a, %b = mt.cross_entropy_from_stats_grad %d, %s : tensor<f32>, tensor<2xf32> -> tensor<3xf32>, tensor<2xf32>
  return %a : tensor<3xf32>
}

// -----

// mt.axis_index C1: no such mesh
func.func @axis_index_c1_mesh() -> tensor<i64> {
  // expected-error @+1 {{violates C1:}}
  %i = mt.axis_index on @nowhere axis = "tp" : tensor<i64>
  return %i : tensor<i64>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
// mt.axis_index C2: the mesh has no such axis
func.func @axis_index_c2_axis() -> tensor<i64> {
  // expected-error @+1 {{violates C2: mesh @mesh has no axis 'pp'}}
  %i = mt.axis_index on @mesh axis = "pp" : tensor<i64>
  return %i : tensor<i64>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
// mt.axis_index C3: a coordinate that is not a tensor<i64>
func.func @axis_index_c3_result() -> tensor<i32> {
  // expected-error @+1 {{violates C3: the result must be tensor<i64>, got 'tensor<i32>'}}
  %i = mt.axis_index on @mesh axis = "tp" : tensor<i32>
  return %i : tensor<i32>
}

// -----

// mt.vary C1: no such mesh
func.func @vary_c1_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{violates C1:}}
  %y = mt.vary %x on @nowhere axes = ["tp"] : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

mt.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
// mt.vary C2: a repeated axis
func.func @vary_c2_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{violates C2:}}
  %y = mt.vary %x on @mesh axes = ["tp", "tp"] : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// mt.shard_slice C1: dim outside the rank
func.func @shard_slice_c1_dim(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<4x4xf32> {
  // expected-error @+1 {{violates C1: dim 2 is outside rank 2}}
  %y = mt.shard_slice %x[%i : tensor<i64>] dim = 2 parts = 2 : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// mt.shard_slice C2: uneven pieces
func.func @shard_slice_c2_parts(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<4x2xf32> {
  // expected-error @+1 {{violates C2: dimension 1 of size 8 does not split into 3 equal pieces}}
  %y = mt.shard_slice %x[%i : tensor<i64>] dim = 1 parts = 3 : tensor<4x8xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// mt.shard_slice C3: a piece of the wrong size
func.func @shard_slice_c3_piece(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{violates C3: the piece must be 4x4 of 'f32', got 'tensor<4x8xf32>'}}
  %y = mt.shard_slice %x[%i : tensor<i64>] dim = 1 parts = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// mt.shard_slice C4: an index that is not a tensor<i64>
func.func @shard_slice_c4_index(%x: tensor<4x8xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{violates C4: the index must be tensor<i64>}}
  %y = mt.shard_slice %x[%i : tensor<i32>] dim = 1 parts = 2 : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// mt.insert_layer C1: a scalar has no layer dimension
func.func @insert_layer_c1_rank0(%v: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the stacked tensor needs a static leading layer dimension, got 'tensor<f32>'}}
  %y = mt.insert_layer %v into %x {layer = 0 : i64} : tensor<f32> into tensor<f32>
  return %y : tensor<f32>
}

// -----

// mt.insert_layer C1: a dynamic number of layers
func.func @insert_layer_c1_dynamic_layers(%v: tensor<8xf32>, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{violates C1: the stacked tensor needs a static leading layer dimension, got 'tensor<?x8xf32>'}}
  %y = mt.insert_layer %v into %x {layer = 0 : i64} : tensor<8xf32> into tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// mt.insert_layer C2: a layer index past the last layer
func.func @insert_layer_c2_layer_too_large(%v: tensor<8xf32>, %x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{violates C2: layer 3 is outside [0, 3)}}
  %y = mt.insert_layer %v into %x {layer = 3 : i64} : tensor<8xf32> into tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// mt.insert_layer C3: a value that is not one layer's slice
func.func @insert_layer_c3_value_shape(%v: tensor<4xf32>, %x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{violates C3: the value must be one layer's slice 'tensor<8xf32>', got 'tensor<4xf32>'}}
  %y = mt.insert_layer %v into %x {layer = 1 : i64} : tensor<4xf32> into tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// mt.accumulate C1: integers are not gradients
func.func @accumulate_c1_integer(%v: tensor<8xi32>, %acc: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{violates C1: the accumulated value must be floating-point, got 'tensor<8xi32>'}}
  %y = mt.accumulate %v into %acc : tensor<8xi32>
  return %y : tensor<8xi32>
}

// -----

// mt.gradient_ready C1: signals are numbered from 0
func.func @gradient_ready_c1_index(%acc: tensor<8xf32>) {
  // expected-error @+1 {{violates C1: index must be non-negative, got -1}}
  mt.gradient_ready %acc {accumulator = 0 : i64, index = -1 : i64} : tensor<8xf32>
  return
}

// -----

// mt.gradient_ready C2: the accumulator is an argument of the value's type
func.func @gradient_ready_c2_argument(%acc: tensor<8xf32>) {
  // expected-error @+1 {{violates C2: accumulator 1 must be an argument of the enclosing function of the value's type 'tensor<8xf32>'}}
  mt.gradient_ready %acc {accumulator = 1 : i64, index = 0 : i64} : tensor<8xf32>
  return
}

// -----

// mt.gradient_ready C3: a layer of a stacked accumulator
func.func @gradient_ready_c3_layer(%acc: tensor<2x8xf32>) {
  // expected-error @+1 {{violates C3: layer 2 must index the first dimension of a stacked accumulator, got 'tensor<2x8xf32>'}}
  mt.gradient_ready %acc {accumulator = 0 : i64, index = 0 : i64, layer = 2 : i64} : tensor<2x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// mt.cache_insert
//===----------------------------------------------------------------------===//

// -----

// mt.cache_insert C1: a cache of rank 3
func.func @cache_insert_c1_rank(%k: tensor<2x1x4xf32>, %cache: tensor<2x32x4xf32>, %pos: tensor<i64>) -> tensor<2x32x4xf32> {
  // expected-error @+1 {{violates C1: the cache must be a rank-4 floating-point tensor [batch, heads, capacity, head_dim], got 'tensor<2x32x4xf32>'}}
  %c = mt.cache_insert %k into %cache at %pos : tensor<2x1x4xf32> into tensor<2x32x4xf32>, tensor<i64>
  return %c : tensor<2x32x4xf32>
}

// -----

// mt.cache_insert C2: an update with other heads
func.func @cache_insert_c2_heads(%k: tensor<2x3x1x4xf32>, %cache: tensor<2x4x32x4xf32>, %pos: tensor<i64>) -> tensor<2x4x32x4xf32> {
  // expected-error @+1 {{violates C2: the update must be [batch, heads, n, head_dim] of the cache's element type with n <= capacity, got 'tensor<2x3x1x4xf32>' for a cache 'tensor<2x4x32x4xf32>'}}
  %c = mt.cache_insert %k into %cache at %pos : tensor<2x3x1x4xf32> into tensor<2x4x32x4xf32>, tensor<i64>
  return %c : tensor<2x4x32x4xf32>
}

// -----

// mt.cache_insert C2: more positions than the cache holds
func.func @cache_insert_c2_too_long(%k: tensor<2x4x64x4xf32>, %cache: tensor<2x4x32x4xf32>, %pos: tensor<i64>) -> tensor<2x4x32x4xf32> {
  // expected-error @+1 {{violates C2: the update must be [batch, heads, n, head_dim] of the cache's element type with n <= capacity}}
  %c = mt.cache_insert %k into %cache at %pos : tensor<2x4x64x4xf32> into tensor<2x4x32x4xf32>, tensor<i64>
  return %c : tensor<2x4x32x4xf32>
}

// -----

// mt.cache_insert C3: a position that is not tensor<i64>
func.func @cache_insert_c3_position(%k: tensor<2x4x1x4xf32>, %cache: tensor<2x4x32x4xf32>, %pos: tensor<1xi64>) -> tensor<2x4x32x4xf32> {
  // expected-error @+1 {{violates C3: the position must be tensor<i64>, got 'tensor<1xi64>'}}
  %c = mt.cache_insert %k into %cache at %pos : tensor<2x4x1x4xf32> into tensor<2x4x32x4xf32>, tensor<1xi64>
  return %c : tensor<2x4x32x4xf32>
}

//===----------------------------------------------------------------------===//
// mt.relative_position_bias
//===----------------------------------------------------------------------===//

// -----

// mt.relative_position_bias C1: rank-3 scores
func.func @relative_position_bias_c1_rank(%x: tensor<8x16x16xf32>, %t: tensor<32x8xf32>) -> tensor<8x16x16xf32> {
  // expected-error @+1 {{violates C1: the input must be floating-point [batch, heads, queries, keys], got 'tensor<8x16x16xf32>'}}
  %y = mt.relative_position_bias %x, %t {bidirectional} : tensor<8x16x16xf32>, tensor<32x8xf32>
  return %y : tensor<8x16x16xf32>
}

// -----

// mt.relative_position_bias C2: a table for other heads
func.func @relative_position_bias_c2_heads(%x: tensor<2x8x16x16xf32>, %t: tensor<32x4xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: the table must be [num_buckets, 8] of 'f32', got 'tensor<32x4xf32>'}}
  %y = mt.relative_position_bias %x, %t {bidirectional} : tensor<2x8x16x16xf32>, tensor<32x4xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.relative_position_bias C2: a table of another element type
func.func @relative_position_bias_c2_type(%x: tensor<2x8x16x16xf32>, %t: tensor<32x8xf64>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C2: the table must be [num_buckets, 8] of 'f32', got 'tensor<32x8xf64>'}}
  %y = mt.relative_position_bias %x, %t {bidirectional} : tensor<2x8x16x16xf32>, tensor<32x8xf64>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.relative_position_bias C3: too few buckets for both directions
func.func @relative_position_bias_c3_buckets(%x: tensor<2x8x16x16xf32>, %t: tensor<2x8xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: the bucket count must be even and >= 4, got 2}}
  %y = mt.relative_position_bias %x, %t {bidirectional} : tensor<2x8x16x16xf32>, tensor<2x8xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.relative_position_bias C3: an odd bucket count
func.func @relative_position_bias_c3_odd(%x: tensor<2x8x16x16xf32>, %t: tensor<31x8xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C3: the bucket count must be even and >= 2, got 31}}
  %y = mt.relative_position_bias %x, %t : tensor<2x8x16x16xf32>, tensor<31x8xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.relative_position_bias C4: max_distance within the exact buckets
func.func @relative_position_bias_c4_distance(%x: tensor<2x8x16x16xf32>, %t: tensor<32x8xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{violates C4: max_distance must exceed the 8 exactly bucketed distances, got 8}}
  %y = mt.relative_position_bias %x, %t {bidirectional, max_distance = 8 : i64} : tensor<2x8x16x16xf32>, tensor<32x8xf32>
  return %y : tensor<2x8x16x16xf32>
}

// -----

// mt.relative_position_bias C5: a position that is not a scalar
func.func @relative_position_bias_c5_position(%x: tensor<2x8x1x16xf32>, %t: tensor<32x8xf32>, %pos: tensor<1xi64>) -> tensor<2x8x1x16xf32> {
  // expected-error @+1 {{violates C5: the position must be tensor<i64>, got 'tensor<1xi64>'}}
  %y = mt.relative_position_bias %x, %t position %pos : tensor<1xi64> : tensor<2x8x1x16xf32>, tensor<32x8xf32>
  return %y : tensor<2x8x1x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.relative_position_bias_grad
//===----------------------------------------------------------------------===//

// -----

// mt.relative_position_bias_grad C1: an integer gradient
func.func @relative_position_bias_grad_c1_integer(%g: tensor<2x8x16x16xi32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{violates C1: grad must be floating-point [batch, heads, queries, keys], got 'tensor<2x8x16x16xi32>'}}
  %t = mt.relative_position_bias_grad %g {bidirectional} : tensor<2x8x16x16xi32> -> tensor<32x8xf32>
  return %t : tensor<32x8xf32>
}

// -----

// mt.relative_position_bias_grad C2: a result for other heads
func.func @relative_position_bias_grad_c2_heads(%g: tensor<2x8x16x16xf32>) -> tensor<32x4xf32> {
  // expected-error @+1 {{violates C2: the result must be the table [num_buckets, 8] of 'f32', got 'tensor<32x4xf32>'}}
  %t = mt.relative_position_bias_grad %g {bidirectional} : tensor<2x8x16x16xf32> -> tensor<32x4xf32>
  return %t : tensor<32x4xf32>
}

// -----

// mt.relative_position_bias_grad C3: an odd bucket count
func.func @relative_position_bias_grad_c3_odd(%g: tensor<2x8x16x16xf32>) -> tensor<33x8xf32> {
  // expected-error @+1 {{violates C3: the bucket count must be even and >= 4, got 33}}
  %t = mt.relative_position_bias_grad %g {bidirectional} : tensor<2x8x16x16xf32> -> tensor<33x8xf32>
  return %t : tensor<33x8xf32>
}

// -----

// mt.relative_position_bias_grad C4: max_distance within the exact buckets
func.func @relative_position_bias_grad_c4_distance(%g: tensor<2x8x16x16xf32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{violates C4: max_distance must exceed the 16 exactly bucketed distances, got 3}}
  %t = mt.relative_position_bias_grad %g {max_distance = 3 : i64} : tensor<2x8x16x16xf32> -> tensor<32x8xf32>
  return %t : tensor<32x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mt.fused_attention
//===----------------------------------------------------------------------===//

// -----

// mt.fused_attention C1: integer
func.func @fused_attention_c1_integer(%q: tensor<2x4x8x4xi32>, %k: tensor<2x4x8x4xi32>, %v: tensor<2x4x8x4xi32>) -> tensor<2x8x16xi32> {
  // expected-error @+1 {{violates C1: query, key and value must be rank-4 floating-point tensors of one element type}}
  %o, %lse = mt.fused_attention %q, %k, %v : tensor<2x4x8x4xi32>, tensor<2x4x8x4xi32>, tensor<2x4x8x4xi32> -> tensor<2x8x16xi32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xi32>
}

// -----

// mt.fused_attention C2: rate one
func.func @fused_attention_c2_rate_one(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got 1}}
  %o, %lse = mt.fused_attention %q, %k, %v {rate = 1.0 : f64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C3: seed i32
func.func @fused_attention_c3_seed_i32(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %s: tensor<i32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<i32>'}}
  %o, %lse = mt.fused_attention %q, %k, %v seed %s : tensor<i32> {rate = 0.1 : f64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C4: negative stream
func.func @fused_attention_c4_negative_stream(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C4: stream must be >= 0, got -1}}
  %o, %lse = mt.fused_attention %q, %k, %v {stream = -1 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C5: negative layer
func.func @fused_attention_c5_negative_layer(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C5: layer must be >= 0, got -1}}
  %o, %lse = mt.fused_attention %q, %k, %v {layer = -1 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C6: shard dim alone
func.func @fused_attention_c6_shard_dim_alone(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C6: shard (a tensor<i64>), shard_dim and shard_parts come together}}
  %o, %lse = mt.fused_attention %q, %k, %v {shard_dim = 1 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C7: shard dim outside
func.func @fused_attention_c7_shard_dim_outside(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %r: tensor<i64>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C7: shard_dim 4 must be a dimension of the rank-4 input and shard_parts 2 >= 1}}
  %o, %lse = mt.fused_attention %q, %k, %v shard %r : tensor<i64> {shard_dim = 4 : i64, shard_parts = 2 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C8: value shape
func.func @fused_attention_c8_value_shape(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x8xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C8: key and value must have one shape, with the query's batch and head_dim}}
  %o, %lse = mt.fused_attention %q, %k, %v : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x8xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C9: uneven groups
func.func @fused_attention_c9_uneven_groups(%q: tensor<2x4x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C9: 4 query heads do not group evenly over 3 key/value heads}}
  %o, %lse = mt.fused_attention %q, %k, %v : tensor<2x4x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C10: output shape
func.func @fused_attention_c10_output_shape(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x8xf32> {
  // expected-error @+1 {{violates C10: the output must be 2x4x8x4 or 2x8x16 of the query's element type, got 'tensor<2x8x8xf32>'}}
  %o, %lse = mt.fused_attention %q, %k, %v : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x8xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x8xf32>
}

// -----

// mt.fused_attention C11: lse f16
func.func @fused_attention_c11_lse_f16(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C11: the log-sum-exp must be 'f32' [batch, heads, queries] = 2x4x8, got 'tensor<2x4x8xf16>'}}
  %o, %lse = mt.fused_attention %q, %k, %v : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf16>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C12: causal few keys
func.func @fused_attention_c12_causal_few_keys(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x4x4xf32>, %v: tensor<2x4x4x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C12: a causal mask needs at least as many keys as queries, got 8 queries and 4 keys}}
  %o, %lse = mt.fused_attention %q, %k, %v {mask = #mt<mask causal>} : tensor<2x4x8x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C13: key mask shape
func.func @fused_attention_c13_key_mask_shape(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %m: tensor<2x7xi1>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C13: key_mask must be i1 [batch, keys] = [2x8], got 'tensor<2x7xi1>'}}
  %o, %lse = mt.fused_attention %q, %k, %v key_mask %m : tensor<2x7xi1> : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C14: zero scale
func.func @fused_attention_c14_zero_scale(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C14: scale must be positive and finite, got 0}}
  %o, %lse = mt.fused_attention %q, %k, %v {scale = 0.0 : f64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C15: shard dim not heads
func.func @fused_attention_c15_shard_dim_not_heads(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %r: tensor<i64>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C15: shard_dim must be 1 (the heads), got 2}}
  %o, %lse = mt.fused_attention %q, %k, %v shard %r : tensor<i64> {shard_dim = 2 : i64, shard_parts = 2 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// mt.fused_attention C16: block keys zero
func.func @fused_attention_c16_block_keys_zero(%q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{violates C16: block_keys must be >= 1, got 0}}
  %o, %lse = mt.fused_attention %q, %k, %v {block_keys = 0 : i64} : tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32> -> tensor<2x8x16xf32>, tensor<2x4x8xf32>
  return %o : tensor<2x8x16xf32>
}

//===----------------------------------------------------------------------===//
// mt.fused_attention_grad
//===----------------------------------------------------------------------===//

// -----

// mt.fused_attention_grad C1: integer
func.func @fused_attention_grad_c1_integer(%do: tensor<2x8x16xi32>, %q: tensor<2x4x8x4xi32>, %k: tensor<2x4x8x4xi32>, %v: tensor<2x4x8x4xi32>, %o: tensor<2x8x16xi32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xi32> {
  // expected-error @+1 {{violates C1: query, key and value must be rank-4 floating-point tensors of one element type}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x16xi32>, tensor<2x4x8x4xi32>, tensor<2x4x8x4xi32>, tensor<2x4x8x4xi32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xi32>
}

// -----

// mt.fused_attention_grad C2: rate one
func.func @fused_attention_grad_c2_rate_one(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C2: rate must be in [0, 1), got 1}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {rate = 1.0 : f64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C3: seed i32
func.func @fused_attention_grad_c3_seed_i32(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %s: tensor<i32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C3: the seed must be tensor<i64>, got 'tensor<i32>'}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse seed %s : tensor<i32> {rate = 0.1 : f64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C4: negative stream
func.func @fused_attention_grad_c4_negative_stream(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C4: stream must be >= 0, got -1}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {stream = -1 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C5: negative layer
func.func @fused_attention_grad_c5_negative_layer(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C5: layer must be >= 0, got -1}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {layer = -1 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C6: shard dim alone
func.func @fused_attention_grad_c6_shard_dim_alone(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C6: shard (a tensor<i64>), shard_dim and shard_parts come together}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {shard_dim = 1 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C7: shard dim outside
func.func @fused_attention_grad_c7_shard_dim_outside(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %r: tensor<i64>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C7: shard_dim 4 must be a dimension of the rank-4 input and shard_parts 2 >= 1}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse shard %r : tensor<i64> {shard_dim = 4 : i64, shard_parts = 2 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C8: value shape
func.func @fused_attention_grad_c8_value_shape(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x8xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C8: key and value must have one shape, with the query's batch and head_dim}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C9: uneven groups
func.func @fused_attention_grad_c9_uneven_groups(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C9: 4 query heads do not group evenly over 3 key/value heads}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C10: output shape
func.func @fused_attention_grad_c10_output_shape(%do: tensor<2x8x8xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x8xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C10: the output must be 2x4x8x4 or 2x8x16 of the query's element type, got 'tensor<2x8x8xf32>'}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x8xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C11: lse f16
func.func @fused_attention_grad_c11_lse_f16(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf16>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C11: the log-sum-exp must be 'f32' [batch, heads, queries] = 2x4x8, got 'tensor<2x4x8xf16>'}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf16>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C12: causal few keys
func.func @fused_attention_grad_c12_causal_few_keys(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x4x4xf32>, %v: tensor<2x4x4x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C12: a causal mask needs at least as many keys as queries, got 8 queries and 4 keys}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {mask = #mt<mask causal>} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C13: key mask shape
func.func @fused_attention_grad_c13_key_mask_shape(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %m: tensor<2x7xi1>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C13: key_mask must be i1 [batch, keys] = [2x8], got 'tensor<2x7xi1>'}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse key_mask %m : tensor<2x7xi1> : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C14: zero scale
func.func @fused_attention_grad_c14_zero_scale(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C14: scale must be positive and finite, got 0}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.0 : f64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C15: shard dim not heads
func.func @fused_attention_grad_c15_shard_dim_not_heads(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %r: tensor<i64>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C15: shard_dim must be 1 (the heads), got 2}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse shard %r : tensor<i64> {shard_dim = 2 : i64, shard_parts = 2 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}

// -----

// mt.fused_attention_grad C16: block keys zero
func.func @fused_attention_grad_c16_block_keys_zero(%do: tensor<2x8x16xf32>, %q: tensor<2x4x8x4xf32>, %k: tensor<2x4x8x4xf32>, %v: tensor<2x4x8x4xf32>, %o: tensor<2x8x16xf32>, %lse: tensor<2x4x8xf32>) -> tensor<2x4x8x4xf32> {
  // expected-error @+1 {{violates C16: block_keys must be >= 1, got 0}}
  %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {block_keys = 0 : i64} : tensor<2x8x16xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8x4xf32>, tensor<2x4x8xf32>
  return %dq : tensor<2x4x8x4xf32>
}


// -----

// Discardable attributes D1: a name the dialect does not define (a typo of mt.layer)
func.func @discardable_d1_unknown_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{violates D1: unknown attribute 'mt.layers'}}
  %y = mt.relu %x {mt.layers = 3 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Discardable attributes D2: an op attribute on an argument
// expected-error @+1 {{argument 0: violates D2: 'mt.layer' does not belong on an argument}}
func.func @discardable_d2_wrong_place(%x: tensor<4xf32> {mt.layer = 0 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Discardable attributes D3: a layer index that is not an integer
func.func @discardable_d3_wrong_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{violates D3: 'mt.layer' must be an i64 integer, got "0"}}
  %y = mt.relu %x {mt.layer = "0"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Discardable attributes D3: a batch argument named by a non-string
// expected-error @+1 {{argument 0: violates D3: 'mt.batch' must be a string, got 1 : i64}}
func.func @discardable_d3_batch_not_string(%x: tensor<4xi32> {mt.batch = 1 : i64}) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}

// -----

// mt.log_softmax C1: an integer input
func.func @log_softmax_c1_integer_input(%x: tensor<2x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{violates C1: the input must be a floating-point tensor of rank >= 1, got 'tensor<2x4xi32>'}}
  %y = mt.log_softmax %x : tensor<2x4xi32>
  return %y : tensor<2x4xi32>
}

// -----

// mt.log_softmax_grad C1: a rank-0 output
func.func @log_softmax_grad_c1_rank_zero(%dy: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{violates C1: the output must be a floating-point tensor of rank >= 1, got 'tensor<f32>'}}
  %dx = mt.log_softmax_grad %dy, %y : tensor<f32>
  return %dx : tensor<f32>
}

// -----

// mt.lane_id C1: a task that is not a loop's induction variable
func.func @lane_id_c1_not_a_task(%task: index) -> index {
  // expected-error @+1 {{violates C1: the task must be the induction variable of an enclosing loop}}
  %lane = mt.lane_id %task
  return %lane : index
}

// -----

// mt.warp_mma C1: a shape other than m16n8k16
func.func @warp_mma_c1_shape(%a: vector<8xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{violates C1: shape must be [16, 8, 16] (m16n8k16)}}
  %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 8>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// mt.warp_mma C2: f32 multiplicands
func.func @warp_mma_c2_f32_fragments(%a: vector<8xf32>, %b: vector<4xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{violates C2: A must be vector<8xE> and B vector<4xE> with E bf16 or f16, got 'vector<8xf32>' and 'vector<4xf32>'}}
  %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<8xf32>, vector<4xf32>, vector<4xf32> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// mt.warp_mma C2: A and B of different element types
func.func @warp_mma_c2_mixed(%a: vector<8xbf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{violates C2: A must be vector<8xE> and B vector<4xE> with E bf16 or f16, got 'vector<8xbf16>' and 'vector<4xf16>'}}
  %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xf16>, vector<4xf32> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// mt.warp_mma C3: a bf16 accumulator
func.func @warp_mma_c3_bf16_accumulator(%a: vector<8xbf16>, %b: vector<4xbf16>, %c: vector<4xbf16>) -> vector<4xbf16> {
  // expected-error @+1 {{violates C3: C and the result must be vector<4xf32>, got 'vector<4xbf16>' and 'vector<4xbf16>'}}
  %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xbf16> -> vector<4xbf16>
  return %d : vector<4xbf16>
}
