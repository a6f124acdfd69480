// RUN: mt-opt %s -mt-build-inference | FileCheck %s
// RUN: mt-opt %s -mt-build-inference=capacity=8 | FileCheck %s --check-prefix=CAPACITY
// RUN: mt-opt %s -mt-build-inference=all-logits=true | FileCheck %s --check-prefix=ALL

// A one-layer model: its prefill and decode replace it. Both take the
// tokens at `position`, write each attention site's keys and values into
// caches [batch, heads, capacity, head_dim] (updated in place: results 1
// and 2 are arguments 5 and 6), attend over the caches with a causal mask
// from `position`, and return the logits the loss read. Dropout is off;
// labels, loss mask and seed are gone.
// CHECK-NOT: func.func @m(
// CHECK-LABEL: func.func @m_prefill
// CHECK-SAME: (%[[TOK:.*]]: tensor<?x?xi32> {mt.batch = "tokens"}, %[[WTE:.*]]: tensor<16x8xf32> {mt.param = {{.*}}}, %[[WPE:.*]]: tensor<32x8xf32> {mt.param = {{.*}}}, %{{.*}}: tensor<24x8xf32> {mt.param = {{.*}}}, %[[POS:[a-z0-9_]+]]: tensor<i64> {mt.batch = "position"}, %[[ROWS:[a-z0-9_]+]]: tensor<?xi64> {mt.batch = "row_position"}, %[[CMASK:[a-z0-9_]+]]: tensor<?x32xi1> {mt.batch = "cache_mask"}, %[[LAST:[a-z0-9_]+]]: tensor<?x?x1xf32> {mt.batch = "last_token"}, %[[KC:[a-z0-9_]+]]: tensor<?x2x32x4xf32> {mt.kv_cache = "k.0"}, %[[VC:[a-z0-9_]+]]: tensor<?x2x32x4xf32> {mt.kv_cache = "v.0"})
// CHECK-SAME: -> (tensor<?x1x16xf32>, tensor<?x2x32x4xf32> {mt.in_place_of = 8 : i64}, tensor<?x2x32x4xf32> {mt.in_place_of = 9 : i64})
// CHECK-SAME: mt.role = #mt<role prefill>
// CHECK-NOT: mt.dropout
// Each row's tokens count from its own position (a ragged batch's rows are
// left-padded); the cache mask hides the padding.
// CHECK: %[[P:.*]] = mt.position_embedding %[[WPE]] for %[[TOK]] at %[[ROWS]] : tensor<?xi64> : tensor<32x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
// CHECK: %[[Q:.*]] = mt.split_heads
// CHECK: %[[K:.*]] = mt.split_heads
// CHECK: %[[V:.*]] = mt.split_heads
// CHECK: %[[K2:.*]] = mt.cache_insert %[[K]] into %[[KC]] at %[[POS]] : tensor<?x2x?x4xf32> into tensor<?x2x32x4xf32>, tensor<i64>
// CHECK: %[[S:.*]] = mt.attention_scores %[[Q]], %[[K2]] : tensor<?x2x?x4xf32>, tensor<?x2x32x4xf32> -> tensor<?x2x?x32xf32>
// CHECK: %[[W:.*]] = mt.softmax %[[S]] key_mask %[[CMASK]] : tensor<?x32xi1> position %[[POS]] : tensor<i64> {mask = #mt<mask causal>, scale = 5.000000e-01 : f64} : tensor<?x2x?x32xf32>
// CHECK: %[[V2:.*]] = mt.cache_insert %[[V]] into %[[VC]] at %[[POS]]
// CHECK: %[[C:.*]] = mt.attention_context %[[W]], %[[V2]]
// CHECK: %[[H:[a-z0-9_]+]] = mt.merge_heads %[[C]]
// The head reads the hidden state of the token `last_token` picks.
// CHECK: %[[PICK:.*]] = mt.matmul %[[LAST]], %[[H]] {transpose_lhs} : tensor<?x?x1xf32>, tensor<?x?x8xf32> -> tensor<?x1x8xf32>
// CHECK: %[[L:.*]] = mt.linear %[[PICK]], %[[WTE]] : tensor<?x1x8xf32>, tensor<16x8xf32> -> tensor<?x1x16xf32>
// CHECK-NOT: mt.cross_entropy
// CHECK: return %[[L]], %[[K2]], %[[V2]]

// all-logits: every token's logits, no pick.
// ALL-LABEL: func.func @m_prefill
// ALL-SAME: %{{[a-z0-9_]+}}: tensor<?x32xi1> {mt.batch = "cache_mask"}, %{{[a-z0-9_]+}}: tensor<?x2x32x4xf32> {mt.kv_cache = "k.0"}
// ALL-SAME: -> (tensor<?x?x16xf32>, tensor<?x2x32x4xf32> {mt.in_place_of = 7 : i64}
// ALL-NOT: mt.matmul
// ALL: return

// The decode takes one token a row, and has no pick.
// CHECK-LABEL: func.func @m_decode
// CHECK-SAME: (%[[DTOK:.*]]: tensor<?x1xi32> {mt.batch = "tokens"}
// CHECK-SAME: mt.role = #mt<role decode>
// CHECK: mt.position_embedding %{{.*}} for %[[DTOK]] at
// CHECK-NOT: mt.matmul

// CAPACITY-LABEL: func.func @m_prefill
// CAPACITY-SAME: tensor<?x2x8x4xf32> {mt.kv_cache = "k.0"}
func.func @m(%tokens: tensor<?x?xi32> {mt.batch = "tokens"},
             %labels: tensor<?x?xi32> {mt.batch = "labels"},
             %mask: tensor<?x?xf32> {mt.batch = "loss_mask"},
             %seed: tensor<i64> {mt.batch = "dropout_seed"},
             %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
             %wpe: tensor<32x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>},
             %wqkv: tensor<24x8xf32> {mt.param = #mt.param<name = "qkv", init = normal, std = 0.02>}) -> tensor<f32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %pos = mt.position_embedding %wpe for %tokens : tensor<32x8xf32>, tensor<?x?xi32> -> tensor<?x8xf32>
  %x = mt.add %tok, %pos : tensor<?x?x8xf32>, tensor<?x8xf32>
  %qkv = mt.linear %x, %wqkv : tensor<?x?x8xf32>, tensor<24x8xf32> -> tensor<?x?x24xf32>
  %q, %k, %v = mt.split %qkv {dim = 2 : i64, sizes = array<i64: 8, 8, 8>} : tensor<?x?x24xf32> -> tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
  %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %s = mt.attention_scores %qh, %kh : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<?x2x?x?xf32>
  %pd = mt.dropout %p seed %seed : tensor<i64> {rate = 0.1 : f64, stream = 1 : i64} : tensor<?x2x?x?xf32>
  %c = mt.attention_context %pd, %vh : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %m, %wte : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<?x?x16xf32>, tensor<?x?xi32>, tensor<?x?xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
