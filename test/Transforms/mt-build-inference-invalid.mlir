// RUN: mt-opt %s -mt-build-inference -split-input-file -verify-diagnostics

// A model whose result is not a loss over logits.
func.func @no_loss(%tokens: tensor<?x?xi32> {mt.batch = "tokens"},
                   %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                   %wpe: tensor<32x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>}) -> tensor<?x?x8xf32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %pos = mt.position_embedding %wpe for %tokens : tensor<32x8xf32>, tensor<?x?xi32> -> tensor<?x8xf32>
  %x = mt.add %tok, %pos : tensor<?x?x8xf32>, tensor<?x8xf32>
  // expected-error @+1 {{mt-build-inference: the model must return the mt.cross_entropy of its logits}}
  return %x : tensor<?x?x8xf32>
}

// -----

// Bidirectional attention has nothing to cache.
func.func @not_causal(%tokens: tensor<?x?xi32> {mt.batch = "tokens"}, %labels: tensor<?x?xi32> {mt.batch = "labels"},
                      %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                      %wpe: tensor<32x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>}) -> tensor<f32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %pos = mt.position_embedding %wpe for %tokens : tensor<32x8xf32>, tensor<?x?xi32> -> tensor<?x8xf32>
  %x = mt.add %tok, %pos : tensor<?x?x8xf32>, tensor<?x8xf32>
  %h = mt.split_heads %x {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  // expected-error @+1 {{mt-build-inference: an attention site must be mt.attention_scores -> (mt.alibi or mt.relative_position_bias ->) a causal mt.softmax -> mt.attention_context, each used once}}
  %s = mt.attention_scores %h, %h : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %p = mt.softmax %s : tensor<?x2x?x?xf32>
  %c = mt.attention_context %p, %h : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %m, %wte : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Without a position table the caches' length must be given.
// expected-error @+1 {{mt-build-inference: the model has no position table to size its KV caches by; give capacity}}
func.func @no_table(%tokens: tensor<?x?xi32> {mt.batch = "tokens"}, %labels: tensor<?x?xi32> {mt.batch = "labels"},
                    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>}) -> tensor<f32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %logits = mt.linear %tok, %wte : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The last token's logits alone need a head (mt.linear or mt.matmul) over
// [batch, seq, hidden] states to pick the token before.
func.func @head_not_linear(%tokens: tensor<?x?xi32> {mt.batch = "tokens"}, %labels: tensor<?x?xi32> {mt.batch = "labels"},
                           %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                           %wpe: tensor<32x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>},
                           %bias: tensor<16xf32> {mt.param = #mt.param<name = "bias", init = zeros>}) -> tensor<f32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %pos = mt.position_embedding %wpe for %tokens : tensor<32x8xf32>, tensor<?x?xi32> -> tensor<?x8xf32>
  %x = mt.add %tok, %pos : tensor<?x?x8xf32>, tensor<?x8xf32>
  %h = mt.split_heads %x {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %s = mt.attention_scores %h, %h : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<?x2x?x?xf32>
  %c = mt.attention_context %p, %h : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %l = mt.linear %m, %wte : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  // expected-error @+1 {{mt-build-inference: to compute only the last token's logits, the logits must be an mt.linear (or mt.matmul) of [batch, seq, hidden] states; keep every token's (all-logits, mtc --all-prefill-logits)}}
  %logits = mt.add %l, %bias : tensor<?x?x16xf32>, tensor<16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
