// RUN: mt-opt %s -split-input-file -mt-fuse-attention | FileCheck %s
// RUN: mt-opt %s -split-input-file -mt-fuse-attention=min-keys=32 | FileCheck %s --check-prefix=FEW
// RUN: mt-opt %s -split-input-file -mt-fuse-attention=wide-only=true | FileCheck %s --check-prefix=WIDE
// RUN: mt-opt %s -split-input-file -mt-fuse-attention=mma-shapes-only=true | FileCheck %s --check-prefix=MMA

// GPT's core: causal softmax, dropout keyed by layer and shard, the context
// read only by merge_heads, which the fused op absorbs (its output is the
// merged layout). The dropout's key, the softmax's scale and mask and the
// merge's mt.layer carry over.
// CHECK-LABEL: func.func @gpt
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>, %[[SEED:[^:]*]]: tensor<i64>, %[[R:[^:]*]]: tensor<i64>)
// CHECK-NOT: mt.attention_scores
// CHECK-NOT: mt.softmax
// CHECK: %[[O:.*]], %{{.*}} = mt.fused_attention %[[Q]], %[[K]], %[[V]] seed %[[SEED]] : tensor<i64> shard %[[R]] : tensor<i64> {layer = 3 : i64, mask = #mt<mask causal>, mt.layer = 3 : i64, rate = 1.000000e-01 : f64, scale = 3.500000e-01 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 1 : i64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x16x32xf32>, tensor<2x4x16xf32>
// CHECK-NOT: mt.merge_heads
// CHECK: return %[[O]]
// FEW-LABEL: func.func @gpt
// FEW-NOT: mt.fused_attention
// FEW: mt.attention_scores
func.func @gpt(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %seed: tensor<i64>, %r: tensor<i64>) -> tensor<2x16x32xf32> {
  %s = mt.attention_scores %q, %k {mt.layer = 3 : i64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.35 : f64, mt.layer = 3 : i64} : tensor<2x4x16x16xf32>
  %d = mt.dropout %p seed %seed : tensor<i64> shard %r : tensor<i64> {rate = 0.1 : f64, stream = 1 : i64, layer = 3 : i64, shard_dim = 1 : i64, shard_parts = 2 : i64, mt.layer = 3 : i64} : tensor<2x4x16x16xf32>
  %c = mt.attention_context %d, %v {mt.layer = 3 : i64} : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  %m = mt.merge_heads %c {mt.layer = 3 : i64} : tensor<2x4x16x8xf32> -> tensor<2x16x32xf32>
  return %m : tensor<2x16x32xf32>
}

// -----

// BERT's core without dropout: a padding key mask, grouped key/value heads;
// the context has two readers, so the output keeps the heads split.
// CHECK-LABEL: func.func @bert_gqa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x2x16x8xf32>, %[[V:[^:]*]]: tensor<2x2x16x8xf32>, %[[M:[^:]*]]: tensor<2x16xi1>)
// CHECK: %[[O:.*]], %{{.*}} = mt.fused_attention %[[Q]], %[[K]], %[[V]] key_mask %[[M]] : tensor<2x16xi1> {scale = 5.000000e-01 : f64} : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>
// CHECK: %[[MERGED:.*]] = mt.merge_heads %[[O]]
// CHECK: return %[[MERGED]], %[[O]]
func.func @bert_gqa(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %m: tensor<2x16xi1>) -> (tensor<2x16x32xf32>, tensor<2x4x16x8xf32>) {
  %s = mt.attention_scores %q, %k : tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x4x16x16xf32>
  %p = mt.softmax %s key_mask %m : tensor<2x16xi1> {scale = 0.5 : f64} : tensor<2x4x16x16xf32>
  %c = mt.attention_context %p, %v : tensor<2x4x16x16xf32>, tensor<2x2x16x8xf32> -> tensor<2x4x16x8xf32>
  %o = mt.merge_heads %c : tensor<2x4x16x8xf32> -> tensor<2x16x32xf32>
  return %o, %c : tensor<2x16x32xf32>, tensor<2x4x16x8xf32>
}

// -----

// Left alone: the probabilities returned (a second reader), ALiBi between
// the scores and the softmax, a KV cache's softmax (position).
// CHECK-LABEL: func.func @probabilities_returned
// CHECK-NOT: mt.fused_attention
// CHECK: mt.attention_context
func.func @probabilities_returned(%q: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x16xf32>) {
  %s = mt.attention_scores %q, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  %p = mt.softmax %s : tensor<2x4x16x16xf32>
  %c = mt.attention_context %p, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  return %c, %p : tensor<2x4x16x8xf32>, tensor<2x4x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @alibi
// CHECK-NOT: mt.fused_attention
// CHECK: mt.alibi
func.func @alibi(%q: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %s = mt.attention_scores %q, %q : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  %a = mt.alibi %s {num_heads = 4 : i64} : tensor<2x4x16x16xf32>
  %p = mt.softmax %a {mask = #mt<mask causal>} : tensor<2x4x16x16xf32>
  %c = mt.attention_context %p, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  return %c : tensor<2x4x16x8xf32>
}

// -----

// CHECK-LABEL: func.func @kv_cache
// CHECK-NOT: mt.fused_attention
// CHECK: mt.softmax %{{.*}} position
func.func @kv_cache(%q: tensor<1x4x1x8xf32>, %k: tensor<1x4x16x8xf32>, %pos: tensor<i64>) -> tensor<1x4x1x8xf32> {
  %s = mt.attention_scores %q, %k : tensor<1x4x1x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x1x16xf32>
  %p = mt.softmax %s position %pos : tensor<i64> {mask = #mt<mask causal>} : tensor<1x4x1x16xf32>
  %c = mt.attention_context %p, %k : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x1x8xf32>
  return %c : tensor<1x4x1x8xf32>
}

// -----

// A bf16 core: fused by default; with wide-only (mtc's auto: the CPU's
// tiled kernels take f32/f64 only) it stays as it is, and f32 is still fused.
// CHECK-LABEL: func.func @bf16
// CHECK: mt.fused_attention
// WIDE-LABEL: func.func @bf16
// WIDE-NOT: mt.fused_attention
// WIDE: mt.attention_scores
// WIDE-LABEL: func.func @f32
// WIDE: mt.fused_attention
func.func @bf16(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16> {
  %s = mt.attention_scores %q, %k : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x16xbf16>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.35 : f64} : tensor<2x4x16x16xbf16>
  %c = mt.attention_context %p, %v : tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x8xbf16>
  return %c : tensor<2x4x16x8xbf16>
}
func.func @f32(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %s = mt.attention_scores %q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.35 : f64} : tensor<2x4x16x16xf32>
  %c = mt.attention_context %p, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  return %c : tensor<2x4x16x8xf32>
}

// -----

// The tensor cores' shapes (mma-shapes-only, --gpu-attention=mma): bf16, a
// head dim of 16 and sequences in multiples of 16 fuse.
// CHECK-LABEL: func.func @mma_shape
// CHECK: mt.fused_attention
// MMA-LABEL: func.func @mma_shape
// MMA: %[[O:.*]], %{{.*}} = mt.fused_attention
// MMA: return %[[O]]
func.func @mma_shape(%q: tensor<1x2x32x16xbf16>, %k: tensor<1x2x32x16xbf16>, %v: tensor<1x2x32x16xbf16>) -> tensor<1x2x32x16xbf16> {
  %s = mt.attention_scores %q, %k : tensor<1x2x32x16xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x32x32xbf16>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.25 : f64} : tensor<1x2x32x32xbf16>
  %c = mt.attention_context %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x32x16xbf16>
  return %c : tensor<1x2x32x16xbf16>
}

// -----

// A head dim of 8 is no MMA shape: left unfused under mma-shapes-only.
// CHECK-LABEL: func.func @narrow_heads
// CHECK: mt.fused_attention
// MMA-LABEL: func.func @narrow_heads
// MMA-NOT: mt.fused_attention
// MMA: mt.attention_scores
func.func @narrow_heads(%q: tensor<1x2x32x8xbf16>, %k: tensor<1x2x32x8xbf16>, %v: tensor<1x2x32x8xbf16>) -> tensor<1x2x32x8xbf16> {
  %s = mt.attention_scores %q, %k : tensor<1x2x32x8xbf16>, tensor<1x2x32x8xbf16> -> tensor<1x2x32x32xbf16>
  %p = mt.softmax %s {scale = 0.35 : f64} : tensor<1x2x32x32xbf16>
  %c = mt.attention_context %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x8xbf16> -> tensor<1x2x32x8xbf16>
  return %c : tensor<1x2x32x8xbf16>
}

// -----

// f32 attention (an fp32 plan) is never on the tensor cores: left unfused,
// so the GPU plan keeps cuBLAS's FP32 products.
// CHECK-LABEL: func.func @wide_mma_shape
// CHECK: mt.fused_attention
// MMA-LABEL: func.func @wide_mma_shape
// MMA-NOT: mt.fused_attention
// MMA: mt.attention_scores
func.func @wide_mma_shape(%q: tensor<1x2x32x16xf32>, %k: tensor<1x2x32x16xf32>, %v: tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32> {
  %s = mt.attention_scores %q, %k : tensor<1x2x32x16xf32>, tensor<1x2x32x16xf32> -> tensor<1x2x32x32xf32>
  %p = mt.softmax %s {scale = 0.25 : f64} : tensor<1x2x32x32xf32>
  %c = mt.attention_context %p, %v : tensor<1x2x32x32xf32>, tensor<1x2x32x16xf32> -> tensor<1x2x32x16xf32>
  return %c : tensor<1x2x32x16xf32>
}
