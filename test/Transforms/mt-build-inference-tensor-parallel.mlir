// RUN: mt-opt %s --mt-partition-tensor-parallel=tp=2 --mt-build-inference=capacity=8 | FileCheck %s

// Tensor-parallel inference: mt-build-inference runs on one rank's program
// (mt-partition-tensor-parallel first, sizes still open). Each rank caches
// its heads (1 of 2), and the vocab-parallel loss gives way to the logits:
// this rank's slice of the vocabulary, all-gathered whole. The loss's
// all-reduces are gone.
// CHECK: mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @m_prefill
// CHECK-SAME: %[[WTE:[a-z0-9_]+]]: tensor<8x8xf32> {mt.param = #mt.param<name = "wte"{{.*}}mt.sharding = #mt.sharding<@mesh, [tp, _]>}
// CHECK-SAME: %[[LAST:[a-z0-9_]+]]: tensor<?x?x1xf32> {mt.batch = "last_token"}, %[[KC:[a-z0-9_]+]]: tensor<?x1x8x4xf32> {mt.kv_cache = "k.0"}, %[[VC:[a-z0-9_]+]]: tensor<?x1x8x4xf32> {mt.kv_cache = "v.0"})
// CHECK-SAME: -> (tensor<?x1x16xf32>, tensor<?x1x8x4xf32> {mt.in_place_of = 9 : i64}, tensor<?x1x8x4xf32> {mt.in_place_of = 10 : i64})
// CHECK: %[[K:[a-z0-9_]+]] = mt.cache_insert %{{[a-z0-9_#]+}} into %[[KC]]
// CHECK: %[[H:[a-z0-9_]+]] = mt.vary
// CHECK: %[[PICK:[a-z0-9_]+]] = mt.matmul %[[LAST]], %[[H]] {transpose_lhs}
// CHECK: %[[SLICE:[a-z0-9_]+]] = mt.linear %[[PICK]], %[[WTE]] : tensor<?x1x8xf32>, tensor<8x8xf32> -> tensor<?x1x8xf32>
// CHECK: %[[L:[a-z0-9_]+]] = mt.all_gather %[[SLICE]] on @mesh axes = ["tp"] dim = 2 : tensor<?x1x8xf32> -> tensor<?x1x16xf32>
// CHECK-NOT: mt.all_reduce
// CHECK: return %[[L]], %[[K]]
// CHECK-LABEL: func.func @m_decode
// CHECK: mt.all_gather %{{[a-z0-9_]+}} on @mesh axes = ["tp"] dim = 2
// CHECK-NOT: mt.vocab_parallel
func.func @m(%tokens: tensor<?x?xi32> {mt.batch = "tokens"},
             %labels: tensor<?x?xi32> {mt.batch = "labels"},
             %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
             %wpe: tensor<32x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>},
             %wqkv: tensor<24x8xf32> {mt.param = #mt.param<name = "qkv", init = normal, std = 0.02>},
             %wo: tensor<8x8xf32> {mt.param = #mt.param<name = "out", init = normal, std = 0.02>}) -> tensor<f32> {
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
  %c = mt.attention_context %p, %vh : tensor<?x2x?x?xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
  %m = mt.merge_heads %c : tensor<?x2x?x4xf32> -> tensor<?x?x8xf32>
  %o = mt.linear %m, %wo : tensor<?x?x8xf32>, tensor<8x8xf32> -> tensor<?x?x8xf32>
  %logits = mt.linear %o, %wte : tensor<?x?x8xf32>, tensor<16x8xf32> -> tensor<?x?x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
