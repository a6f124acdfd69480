// RUN: mt-opt %s -mt-build-inference=capacity=8\ encoder-length=6 | FileCheck %s
// RUN: not mt-opt %s -mt-build-inference=capacity=8 2>&1 | FileCheck %s --check-prefix=LENGTH

// An encoder-decoder (one encoder layer, one decoder layer; T5's shape
// without norms and feed-forwards) becomes three functions. The encode
// function runs the encoder and returns the cross-attention's keys and
// values; the decoder's prefill and decode read them as caches of the
// encoder's length (6), keep the padding mask for the cross-attention,
// and cache their own self-attention, whose relative position bias counts
// from `position`, masked by the cache mask. Nothing counts absolute
// positions: no row_position. The encoder is gone from both.
// CHECK-NOT: func.func @t(
// CHECK-LABEL: func.func @t_encode
// CHECK-SAME: (%[[TOK:[a-z0-9_]+]]: tensor<?x?xi32> {mt.batch = "tokens"}, %[[MASK:[a-z0-9_]+]]: tensor<?x?xi1> {mt.batch = "padding_mask"}, %[[EMB:[a-z0-9_]+]]: tensor<16x8xf32> {mt.param = {{.*}}}, %[[EREL:[a-z0-9_]+]]: tensor<32x2xf32> {mt.param = {{.*}}}, %{{.*}}: tensor<8x8xf32> {mt.param = {{.*}}}, %{{.*}}: tensor<8x8xf32> {mt.param = {{.*}}}, %{{.*}}: tensor<8x8xf32> {mt.param = {{.*}}}, %[[CKW:[a-z0-9_]+]]: tensor<8x8xf32> {mt.param = {{.*}}}, %[[CVW:[a-z0-9_]+]]: tensor<8x8xf32> {mt.param =
// CHECK-SAME: -> (tensor<?x2x?x4xf32> {mt.kv_cache = "ck.0"}, tensor<?x2x?x4xf32> {mt.kv_cache = "cv.0"})
// CHECK-SAME: mt.role = #mt<role encode>
// CHECK: %[[X:[a-z0-9_]+]] = mt.embedding %[[EMB]][%[[TOK]]]
// CHECK: mt.relative_position_bias %{{.*}}, %[[EREL]] {bidirectional}
// CHECK: mt.softmax %{{.*}} key_mask %[[MASK]]
// CHECK: %[[EN:[a-z0-9_]+]] = mt.merge_heads
// CHECK: %[[CK:[a-z0-9_]+]] = mt.linear %[[EN]], %[[CKW]]
// CHECK: %[[CKH:[a-z0-9_]+]] = mt.split_heads %[[CK]]
// CHECK: %[[CV:[a-z0-9_]+]] = mt.linear %[[EN]], %[[CVW]]
// CHECK: %[[CVH:[a-z0-9_]+]] = mt.split_heads %[[CV]]
// CHECK-NOT: mt.cross_entropy
// CHECK: return %[[CKH]], %[[CVH]]

// CHECK-LABEL: func.func @t_prefill
// CHECK-SAME: (%[[MASK:[a-z0-9_]+]]: tensor<?x?xi1> {mt.batch = "padding_mask"}, %[[DTOK:[a-z0-9_]+]]: tensor<?x?xi32> {mt.batch = "decoder_tokens", mt.sequence = "decoder"}, %[[EMB:[a-z0-9_]+]]: tensor<16x8xf32> {mt.param = {{.*}}}, %[[DREL:[a-z0-9_]+]]: tensor<32x2xf32> {mt.param = #mt.param<name = "drel"
// CHECK-SAME: %[[CKC:[a-z0-9_]+]]: tensor<?x2x6x4xf32> {mt.kv_cache = "ck.0"}, %[[CVC:[a-z0-9_]+]]: tensor<?x2x6x4xf32> {mt.kv_cache = "cv.0"}, %[[POS:[a-z0-9_]+]]: tensor<i64> {mt.batch = "position"}, %[[CMASK:[a-z0-9_]+]]: tensor<?x8xi1> {mt.batch = "cache_mask"}, %[[LAST:[a-z0-9_]+]]: tensor<?x?x1xf32> {mt.batch = "last_token", mt.sequence = "decoder"}, %[[KC:[a-z0-9_]+]]: tensor<?x2x8x4xf32> {mt.kv_cache = "k.0"}, %[[VC:[a-z0-9_]+]]: tensor<?x2x8x4xf32> {mt.kv_cache = "v.0"})
// CHECK-SAME: -> (tensor<?x1x16xf32>, tensor<?x2x8x4xf32> {mt.in_place_of = 13 : i64}, tensor<?x2x8x4xf32> {mt.in_place_of = 14 : i64})
// CHECK-SAME: mt.role = #mt<role prefill>
// CHECK-NOT: bidirectional
// CHECK: %[[Y:[a-z0-9_]+]] = mt.embedding %[[EMB]][%[[DTOK]]]
// CHECK: %[[K2:[a-z0-9_]+]] = mt.cache_insert %{{.*}} into %[[KC]] at %[[POS]]
// CHECK: %[[S:[a-z0-9_]+]] = mt.attention_scores %{{.*}}, %[[K2]] : tensor<?x2x?x4xf32>, tensor<?x2x8x4xf32> -> tensor<?x2x?x8xf32>
// CHECK: %[[B:[a-z0-9_]+]] = mt.relative_position_bias %[[S]], %[[DREL]] position %[[POS]] : tensor<i64> : tensor<?x2x?x8xf32>, tensor<32x2xf32>
// CHECK: mt.softmax %[[B]] key_mask %[[CMASK]] : tensor<?x8xi1> position %[[POS]] : tensor<i64> {mask = #mt<mask causal>
// CHECK: %[[CS:[a-z0-9_]+]] = mt.attention_scores %{{.*}}, %[[CKC]]
// CHECK: %[[CP:[a-z0-9_]+]] = mt.softmax %[[CS]] key_mask %[[MASK]]
// CHECK: mt.attention_context %[[CP]], %[[CVC]]
// CHECK: mt.matmul %[[LAST]], %{{[a-z0-9_]+}} {transpose_lhs}
// CHECK: return

// CHECK-LABEL: func.func @t_decode
// CHECK-SAME: %{{.*}}: tensor<?x1xi32> {mt.batch = "decoder_tokens", mt.sequence = "decoder"}
// CHECK-SAME: mt.role = #mt<role decode>

// LENGTH: error: mt-build-inference: an encoder-decoder model needs its encoder's sequence length: give encoder-length (mtc --seq-length)
func.func @t(
    %tokens: tensor<?x?xi32> {mt.batch = "tokens"},
    %padding_mask: tensor<?x?xi1> {mt.batch = "padding_mask"},
    %decoder_tokens: tensor<?x?xi32> {mt.batch = "decoder_tokens", mt.sequence = "decoder"},
    %labels: tensor<?x?xi32> {mt.batch = "labels", mt.sequence = "decoder"},
    %emb: tensor<16x8xf32> {mt.param = #mt.param<name = "shared.weight", init = normal, std = 1.0>},
    %erel: tensor<32x2xf32> {mt.param = #mt.param<name = "erel", init = normal, std = 1.0>},
    %drel: tensor<32x2xf32> {mt.param = #mt.param<name = "drel", init = normal, std = 1.0>},
    %eq: tensor<8x8xf32> {mt.param = #mt.param<name = "eq", init = normal, std = 1.0>},
    %ek: tensor<8x8xf32> {mt.param = #mt.param<name = "ek", init = normal, std = 1.0>},
    %ev: tensor<8x8xf32> {mt.param = #mt.param<name = "ev", init = normal, std = 1.0>},
    %dq: tensor<8x8xf32> {mt.param = #mt.param<name = "dq", init = normal, std = 1.0>},
    %dk: tensor<8x8xf32> {mt.param = #mt.param<name = "dk", init = normal, std = 1.0>},
    %dv: tensor<8x8xf32> {mt.param = #mt.param<name = "dv", init = normal, std = 1.0>},
    %cq: tensor<8x8xf32> {mt.param = #mt.param<name = "cq", init = normal, std = 1.0>},
    %ck: tensor<8x8xf32> {mt.param = #mt.param<name = "ck", init = normal, std = 1.0>},
    %cv: tensor<8x8xf32> {mt.param = #mt.param<name = "cv", init = normal, std = 1.0>}) -> tensor<f32> {
  %x = mt.embedding %emb[%tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %q = mt.linear %x, %eq : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %k = mt.linear %x, %ek : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %v = mt.linear %x, %ev : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %s = mt.attention_scores %qh, %kh : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %sb = mt.relative_position_bias %s, %erel {bidirectional, max_distance = 128 : i64} : tensor<?x2x?x?xf32>, tensor<32x2xf32>
  %p = mt.softmax %sb key_mask %padding_mask : tensor<?x?xi1> {scale = 1.0 : f64} : tensor<?x2x?x?xf32>
  %c = mt.attention_context %p, %vh : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %en = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %y = mt.embedding %emb[%decoder_tokens] : tensor<16x8xf32>, tensor<?x?xi32> -> tensor<?x?x8xf32>
  %dq1 = mt.linear %y, %dq : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %dqh = mt.split_heads %dq1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %dk1 = mt.linear %y, %dk : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %dkh = mt.split_heads %dk1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %dv1 = mt.linear %y, %dv : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %dvh = mt.split_heads %dv1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %ds = mt.attention_scores %dqh, %dkh : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %dsb = mt.relative_position_bias %ds, %drel {max_distance = 128 : i64} : tensor<?x2x?x?xf32>, tensor<32x2xf32>
  %dp = mt.softmax %dsb {mask = #mt<mask causal>, scale = 1.0 : f64} : tensor<?x2x?x?xf32>
  %dc = mt.attention_context %dp, %dvh : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %dm = mt.merge_heads %dc : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %cq1 = mt.linear %dm, %cq : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %cqh = mt.split_heads %cq1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %ck1 = mt.linear %en, %ck : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %ckh = mt.split_heads %ck1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %cv1 = mt.linear %en, %cv : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %cvh = mt.split_heads %cv1 {num_heads = 2 : i64} : tensor<?x?x8xf32> -> tensor<?x2x?x4xf32>
  %cs = mt.attention_scores %cqh, %ckh : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x?xf32>
  %cp = mt.softmax %cs key_mask %padding_mask : tensor<?x?xi1> {scale = 1.0 : f64} : tensor<?x2x?x?xf32>
  %cc = mt.attention_context %cp, %cvh : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %cm = mt.merge_heads %cc : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %cm, %emb : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
