// RUN: mt-opt %s -mt-build-inference="encoder-length=6 capacity=8" -split-input-file -verify-diagnostics

// An encoder-decoder whose decoder never reads the encoder: nothing for
// the encode function to return.
// expected-error @+1 {{mt-build-inference: an encoder-decoder model needs cross-attention: an mt.attention_scores whose keys come from the encoder}}
func.func @no_cross_attention(%tokens: tensor<?x?xi32> {mt.batch = "tokens"},
                              %decoder_tokens: tensor<?x?xi32> {mt.batch = "decoder_tokens", mt.sequence = "decoder"},
                              %labels: tensor<?x?xi32> {mt.batch = "labels", mt.sequence = "decoder"},
                              %emb: tensor<16x8xf32> {mt.param = #mt.param<name = "emb", init = normal, std = 0.02>}) -> tensor<f32> {
  %y = mt.embedding %emb[%decoder_tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %h = mt.split_heads %y {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %s = mt.attention_scores %h, %h : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<?x2x?x?xf32>
  %c = mt.attention_context %p, %h : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %m, %emb : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A model whose rotary embedding already counts from a run-time position:
// the position the caches need would not be the only one.
func.func @counts_already(%tokens: tensor<?x?xi32> {mt.batch = "tokens"}, %labels: tensor<?x?xi32> {mt.batch = "labels"},
                          %start: tensor<i64> {mt.batch = "start"},
                          %emb: tensor<16x8xf32> {mt.param = #mt.param<name = "emb", init = normal, std = 0.02>}) -> tensor<f32> {
  %y = mt.embedding %emb[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %h = mt.split_heads %y {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  // expected-error @+1 {{mt-build-inference: the model already counts from a run-time position}}
  %r = mt.rotary %h at %start : tensor<i64> {base = 1.0e+04 : f64} : tensor<?x2x?x4xf32>
  %s = mt.attention_scores %r, %r : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<?x2x?x?xf32>
  %c = mt.attention_context %p, %h : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %m, %emb : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
