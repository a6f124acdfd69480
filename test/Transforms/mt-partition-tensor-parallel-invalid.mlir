// RUN: split-file %s %t
// RUN: mt-opt %t/tp.mlir -split-input-file -verify-diagnostics --mt-partition-tensor-parallel="tp=2"
// RUN: mt-opt %t/sp.mlir -split-input-file -verify-diagnostics --mt-partition-tensor-parallel="tp=2 sequence-parallel=true"
// RUN: mt-opt %t/tp0.mlir -verify-diagnostics --mt-partition-tensor-parallel="tp=0"

// Models the tensor-parallel partitioning refuses, each with the reason.
// tp.mlir runs under tp=2; sp.mlir under tp=2 with sequence parallelism
// (its errors need activations split along the sequence, which only the
// reduce-scatter of sequence parallelism makes); tp0.mlir under tp=0.

//--- tp.mlir

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

// The vocab-parallel embedding splits the table's rows: a vocabulary of 15
// does not split over 2 ranks.
func.func @odd_vocabulary(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<15x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): a parameter dimension of size 15 does not split evenly over 2 tensor-parallel ranks; choose a --tp that divides it}}
  %x = mt.embedding %wte[%tokens] : tensor<15x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %logits = mt.linear %x, %wte : tensor<2x4x8xf32>, tensor<15x8xf32> -> tensor<2x4x15xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x15xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Attention is split by heads: 3 heads do not split over 2 ranks (even
// though the 6 features of the projection do).
func.func @odd_head_count(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x6xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %wq: tensor<6x6xf32> {mt.param = #mt.param<name = "wq", init = normal, std = 2.0e-02>},
    %wo: tensor<6x6xf32> {mt.param = #mt.param<name = "wo", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x6xf32>, tensor<2x4xi32> -> tensor<2x4x6xf32>
  %q = mt.linear %x, %wq : tensor<2x4x6xf32>, tensor<6x6xf32> -> tensor<2x4x6xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): the attention head count 3 does not split evenly over 2 tensor-parallel ranks; choose a --tp that divides it}}
  %qh = mt.split_heads %q {num_heads = 3 : i64} : tensor<2x4x6xf32> -> tensor<2x3x4x2xf32>
  %s = mt.attention_scores %qh, %qh : tensor<2x3x4x2xf32>, tensor<2x3x4x2xf32> -> tensor<2x3x4x4xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x3x4x4xf32>
  %c = mt.attention_context %p, %qh : tensor<2x3x4x4xf32>, tensor<2x3x4x2xf32> -> tensor<2x3x4x2xf32>
  %m = mt.merge_heads %c : tensor<2x3x4x2xf32> -> tensor<2x4x6xf32>
  %o = mt.linear %m, %wo : tensor<2x4x6xf32>, tensor<6x6xf32> -> tensor<2x4x6xf32>
  %logits = mt.linear %o, %wte : tensor<2x4x6xf32>, tensor<16x6xf32> -> tensor<2x4x16xf32>
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

// The tied table is split by vocabulary rows for the embedding, but a logit
// bias added after the head (mt.add keeps no split) makes the head a
// replicated linear that needs the whole table.
func.func @table_needed_whole(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %bias: tensor<16xf32> {mt.param = #mt.param<name = "logit_bias", init = zeros>}) -> tensor<f32> {
  // expected-note @+1 {{first layout chosen here}}
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): parameter 'wte' is needed with two different layouts (here and at mt.embedding); tensor parallelism cannot shard this model}}
  %y = mt.linear %x, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %logits = mt.add %y, %bias : tensor<2x4x16xf32>, tensor<16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// mt.reshape has no tensor-parallel rule, so it runs replicated; the token
// embeddings it flattens are per-rank partial sums.
func.func @reshape_partial_sums(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<8xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): no tensor-parallel rule for 'mt.reshape' on a value that differs between ranks}}
  %flat = mt.reshape %x : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %logits = mt.linear %flat, %wte : tensor<8x8xf32>, tensor<16x8xf32> -> tensor<8x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<8x16xf32>, tensor<8xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A pointwise op on a fused projection's column-parallel output (two
// segments, gate and up), whose other operand is whole on every rank: one
// contiguous piece of the whole operand would not pair with this rank's
// columns of both segments.
func.func @pointwise_whole_operand_on_segments(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %scale: tensor<32xf32>,
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w1: tensor<32x8xf32> {mt.param = #mt.param<name = "w1", init = normal, std = 2.0e-02>},
    %w2: tensor<8x16xf32> {mt.param = #mt.param<name = "w2", init = normal, std = 2.0e-02>},
    %w3: tensor<8x32xf32> {mt.param = #mt.param<name = "w3", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %f = mt.linear %x, %w1 : tensor<2x4x8xf32>, tensor<32x8xf32> -> tensor<2x4x32xf32>
  %g, %u = mt.split %f {dim = 2 : i64, sizes = array<i64: 16, 16>} : tensor<2x4x32xf32> -> tensor<2x4x16xf32>, tensor<2x4x16xf32>
  %h = mt.mul %g, %u : tensor<2x4x16xf32>, tensor<2x4x16xf32>
  %y1 = mt.linear %h, %w2 : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): a whole operand cannot take this rank's piece of a split made of 2 segments (a fused projection's output)}}
  %s = mt.mul %f, %scale : tensor<2x4x32xf32>, tensor<32xf32>
  %y2 = mt.linear %s, %w3 : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
  %y = mt.add %y1, %y2 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %logits = mt.linear %y, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The column-parallel weight is laid out per segment only for splits that
// use the linear's output directly; this split comes after the gelu, so
// each rank's columns would mix the two pieces.
func.func @split_after_column_parallel(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w1: tensor<16x8xf32> {mt.param = #mt.param<name = "w1", init = normal, std = 2.0e-02>},
    %wa: tensor<8x8xf32> {mt.param = #mt.param<name = "wa", init = normal, std = 2.0e-02>},
    %wb: tensor<8x8xf32> {mt.param = #mt.param<name = "wb", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %f = mt.linear %x, %w1 : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %g = mt.gelu %f approximate = tanh : tensor<2x4x16xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): splits a dimension whose segments are laid out differently}}
  %a, %b = mt.split %g {dim = 2 : i64, sizes = array<i64: 8, 8>} : tensor<2x4x16xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %ya = mt.linear %a, %wa : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %yb = mt.linear %b, %wb : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %y = mt.add %ya, %yb : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %logits = mt.linear %y, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The queries are split by heads (column-parallel projection), the keys and
// values are whole on every rank: scores need both split alike.
func.func @keys_not_split_by_heads(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %kv: tensor<2x2x4x4xf32>,
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %wq: tensor<8x8xf32> {mt.param = #mt.param<name = "wq", init = normal, std = 2.0e-02>},
    %wo: tensor<8x8xf32> {mt.param = #mt.param<name = "wo", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %q = mt.linear %x, %wq : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): attention needs queries, keys and values split by heads alike}}
  %s = mt.attention_scores %qh, %kv : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x2x4x4xf32>
  %c = mt.attention_context %p, %kv : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %m = mt.merge_heads %c : tensor<2x2x4x4xf32> -> tensor<2x4x8xf32>
  %o = mt.linear %m, %wo : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %o, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Attention straight on the token embeddings (no projection): they are
// per-rank partial sums, which mt.split_heads passes on and attention cannot
// take, and they are not split by heads.
func.func @attention_on_partial_sums(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %xh = mt.split_heads %x {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): attention on a value that differs between ranks but is not split by heads}}
  %s = mt.attention_scores %xh, %xh : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x2x4x4xf32>
  %c = mt.attention_context %p, %xh : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %m = mt.merge_heads %c : tensor<2x2x4x4xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %m, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Each layer's weights are slices of stacked parameters, whose layout the
// plan records; a computed stacked weight has none.
func.func @stacked_not_param(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w: tensor<1x8x8xf32> {mt.param = #mt.param<name = "h.w", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %w2 = mt.add %w, %w : tensor<1x8x8xf32>, tensor<1x8x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): stacked operand #0 is not a parameter}}
  %h = mt.layer_stack (%hid = %x : tensor<2x4x8xf32>) layers (%lw = %w2 : tensor<1x8x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.linear %hid, %lw : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
    mt.yield %y : tensor<2x4x8xf32>
  }
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The pass declares the tensor-parallel mesh @mesh itself.
// expected-error @+1 {{mt-partition-tensor-parallel: the module already defines @mesh; the pass declares the tensor-parallel mesh itself}}
module {
  mt.mesh @mesh axes = ["tp"] shape = [2]
  func.func @mesh_already_defined(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
      %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
    %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
    %logits = mt.linear %x, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
    %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
    return %loss : tensor<f32>
  }
}


// -----

// Layers already unrolled (mt-build-inference's output, say): a layer's
// weight is an mt.slice_layer of the stacked parameter, not a parameter.
func.func @unrolled(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %w: tensor<2x8x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %w0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x8x8xf32> -> tensor<8x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): this op's weight is not a model parameter (an argument marked mt.param, or an mt.layer_stack's per-layer one): partition the model before its layers are unrolled}}
  %h = mt.linear %x, %w0 : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

//--- sp.mlir

// Sequence parallelism splits the sequence: its length must be known.
// expected-error @+1 {{mt-partition-tensor-parallel: sequence parallelism splits the sequence; run mt-specialize-shapes first (dynamic sizes)}}
func.func @dynamic(%tokens: tensor<2x?xi32> {mt.batch = "tokens"}, %labels: tensor<2x?xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x?xi32> -> tensor<2x?x8xf32>
  %logits = mt.linear %x, %wte : tensor<2x?x8xf32>, tensor<16x8xf32> -> tensor<2x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x?x16xf32>, tensor<2x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The reduce-scatter splits the sequence over the ranks: a sequence of 3
// does not split over 2.
func.func @odd_sequence(%tokens: tensor<2x3xi32> {mt.batch = "tokens"}, %labels: tensor<2x3xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x3xi32> -> tensor<2x3x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): sequence parallelism splits the sequence over the tensor-parallel ranks, and this activation's sequence length does not divide by 2; choose a --seq-length divisible by 2 or turn it off (--sp=false)}}
  %logits = mt.linear %x, %wte : tensor<2x3x8xf32>, tensor<16x8xf32> -> tensor<2x3x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x3x16xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The model returns the hidden states: reduced, they are split along the
// sequence, and a model's results are whole.
func.func @returns_sequence_piece(%tokens: tensor<2x4xi32> {mt.batch = "tokens"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>}) -> tensor<2x4x8xf32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): the model returns a split value}}
  return %x : tensor<2x4x8xf32>
}

// -----

// Attention straight after the norm, with no QKV projection to gather the
// sequence: heads are split from an activation split along the sequence.
func.func @split_heads_of_sequence_piece(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %ln_w: tensor<8xf32> {mt.param = #mt.param<name = "ln.weight", init = ones>},
    %ln_b: tensor<8xf32> {mt.param = #mt.param<name = "ln.bias", init = zeros>}) -> tensor<f32> {
  %x = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %a = mt.layer_norm %x, %ln_w, %ln_b {epsilon = 1.0e-05 : f64} : tensor<2x4x8xf32>, tensor<8xf32>
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): splitting heads of a tensor split along dimension 1}}
  %ah = mt.split_heads %a {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
  %s = mt.attention_scores %ah, %ah : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x2x4x4xf32>
  %c = mt.attention_context %p, %ah : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %m = mt.merge_heads %c : tensor<2x2x4x4xf32> -> tensor<2x4x8xf32>
  %logits = mt.linear %m, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}


// -----

// The layer receives whole activations but its row-parallel output is
// reduce-scattered along the sequence: it would hand the next layer another
// layout than the one it received.
func.func @layer_changes_carried_layout(%h: tensor<2x4x8xf32>, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %fc_w: tensor<1x16x8xf32> {mt.param = #mt.param<name = "h.mlp.fc.weight", init = normal, std = 2.0e-02>},
    %proj_w: tensor<1x8x16xf32> {mt.param = #mt.param<name = "h.mlp.proj.weight", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  // expected-error @+1 {{mt-partition-tensor-parallel (tp=2): a layer must return its carried value in the layout it received}}
  %y = mt.layer_stack (%hid = %h : tensor<2x4x8xf32>) layers (%fw = %fc_w : tensor<1x16x8xf32>,
        %pw = %proj_w : tensor<1x8x16xf32>) -> tensor<2x4x8xf32> {
    %f = mt.linear %hid, %fw : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
    %g = mt.gelu %f approximate = tanh : tensor<2x4x16xf32>
    %d = mt.linear %g, %pw : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
    mt.yield %d : tensor<2x4x8xf32>
  }
  %logits = mt.linear %y, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

//--- tp0.mlir

// A tensor-parallel group has at least one rank.
// expected-error @+1 {{mt-partition-tensor-parallel: tp must be >= 1, got 0}}
module {
}
