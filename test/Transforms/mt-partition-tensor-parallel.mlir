// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2" | FileCheck %s --check-prefix=TP
// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=2 sequence-parallel=1" | FileCheck %s --check-prefix=SP
// RUN: mt-opt %s --mt-partition-tensor-parallel="tp=1" | FileCheck %s --check-prefix=ONE

// A one-layer GPT (hidden 8, 2 heads, vocabulary 16, tied head). Megatron's
// layout is derived from the graph: the embedding table is split by
// vocabulary rows; QKV (three segments) and the first MLP linear are
// column-parallel; the attention projection and the second MLP linear are
// row-parallel, each followed by one reduction; the tied head is
// column-parallel on the vocabulary and the loss becomes vocab-parallel.

// ONE-NOT: mt.mesh
// ONE-LABEL: func.func @mini
// ONE-NOT: mt.all_reduce

// TP: mt.mesh @mesh axes = ["tp"] shape = [2]
// TP-LABEL: func.func @mini
// TP-SAME: %[[WTE:[a-z0-9]+]]: tensor<8x8xf32> {mt.param = #mt.param<name = "wte"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [tp, _]>}
// TP-SAME: tensor<4x8xf32> {mt.param = #mt.param<name = "wpe"{{[^}]*}}>}
// TP-SAME: tensor<1x12x8xf32> {mt.param = #mt.param<name = "h.attn.qkv.weight"{{[^}]*}}mt.segments = 3 : i64, mt.sharding = #mt.sharding<@mesh, [_, tp, _]>}
// TP-SAME: tensor<1x8x4xf32> {mt.param = #mt.param<name = "h.attn.proj.weight"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, _, tp]>}
// TP-SAME: tensor<1x8xf32> {mt.param = #mt.param<name = "h.attn.proj.bias"{{[^}]*}}>}
// TP-SAME: tensor<1x16x8xf32> {mt.param = #mt.param<name = "h.mlp.fc.weight"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, tp, _]>}
// TP-SAME: tensor<1x16xf32> {mt.param = #mt.param<name = "h.mlp.fc.bias"{{[^}]*}}mt.sharding = #mt.sharding<@mesh, [_, tp]>}
// TP: %[[I:.*]] = mt.axis_index on @mesh axis = "tp" : tensor<i64>
// TP: %[[TOK:.*]] = mt.embedding %[[WTE]][%{{.*}}] shard %[[I]] : tensor<i64> : tensor<8x8xf32>
// TP: %[[TOKR:.*]] = mt.all_reduce %[[TOK]] on @mesh axes = ["tp"] reduction = sum : tensor<2x4x8xf32>
// TP: mt.add %[[TOKR]], %{{.*}} : tensor<2x4x8xf32>, tensor<4x8xf32>
// TP: mt.layer_stack
// TP: %[[A:.*]] = mt.layer_norm
// TP: %[[AV:.*]] = mt.vary %[[A]] on @mesh axes = ["tp"] : tensor<2x4x8xf32>
// TP: %[[QKV:.*]] = mt.linear %[[AV]], %{{.*}} : tensor<2x4x8xf32>, tensor<12x8xf32> -> tensor<2x4x12xf32>
// TP: mt.split %[[QKV]] {dim = 2 : i64, sizes = array<i64: 4, 4, 4>}
// TP: mt.split_heads %{{.*}} {num_heads = 1 : i64} : tensor<2x4x4xf32> -> tensor<2x1x4x4xf32>
// TP: %[[CTX:.*]] = mt.merge_heads %{{.*}} : tensor<2x1x4x4xf32> -> tensor<2x4x4xf32>
// TP: %[[PROJ:.*]] = mt.linear %[[CTX]], %{{[a-z0-9]+}} : tensor<2x4x4xf32>, tensor<8x4xf32> -> tensor<2x4x8xf32>
// TP: %[[PROJR:.*]] = mt.all_reduce %[[PROJ]] on @mesh axes = ["tp"] reduction = sum
// TP: mt.add %[[PROJR]], %{{.*}} : tensor<2x4x8xf32>, tensor<8xf32>
// TP: %[[BV:.*]] = mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<2x4x8xf32>
// TP: %[[FC:.*]] = mt.linear %[[BV]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<2x4x16xf32>
// TP: %[[G:.*]] = mt.gelu %[[FC]]
// TP: %[[OUT:.*]] = mt.linear %[[G]], %{{.*}} : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
// TP: mt.all_reduce %[[OUT]] on @mesh axes = ["tp"] reduction = sum
// TP: mt.yield
// TP: %[[HV:.*]] = mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<2x4x8xf32>
// TP: %[[LOGITS:.*]] = mt.linear %[[HV]], %[[WTE]] : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
// TP: %[[I2:.*]] = mt.axis_index on @mesh axis = "tp"
// TP: %[[MAXL:.*]] = mt.vocab_parallel_max %[[LOGITS]][%[[I2]] : tensor<i64>] {num_classes = 16 : i64}
// TP: %[[MAX:.*]] = mt.all_reduce %[[MAXL]] on @mesh axes = ["tp"] reduction = max
// TP: %[[SE:.*]], %[[LL:.*]] = mt.vocab_parallel_stats %[[LOGITS]][%[[I2]] : tensor<i64>], %{{.*}}, %[[MAX]]
// TP: %[[SER:.*]] = mt.all_reduce %[[SE]] on @mesh axes = ["tp"] reduction = sum
// TP: %[[LLR:.*]] = mt.all_reduce %[[LL]] on @mesh axes = ["tp"] reduction = sum
// TP: %[[LOSS:.*]] = mt.cross_entropy_from_stats %[[SER]], %[[LLR]], %[[MAX]]
// TP: return %[[LOSS]]

// Sequence parallelism: reduce-scatter along the sequence instead of
// all-reduce, norms and residuals on sequence pieces, all-gather before each
// column-parallel linear; replicated parameters used on the pieces pass
// mt.vary so their gradients are summed.
// SP-LABEL: func.func @mini
// SP: %[[TOK:.*]] = mt.embedding
// SP: %[[TOKS:.*]] = mt.reduce_scatter %[[TOK]] on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<2x4x8xf32> -> tensor<2x2x8xf32>
// SP: %[[POSV:.*]] = mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<4x8xf32>
// SP: %[[POSS:.*]] = mt.shard_slice %[[POSV]][%{{.*}} : tensor<i64>] dim = 0 parts = 2 : tensor<4x8xf32> -> tensor<2x8xf32>
// SP: mt.add %[[TOKS]], %[[POSS]] : tensor<2x2x8xf32>, tensor<2x8xf32>
// SP: mt.layer_stack
// SP: %[[GV:.*]] = mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<8xf32>
// SP: %[[A:.*]] = mt.layer_norm %{{.*}}, %[[GV]], %{{.*}} : tensor<2x2x8xf32>, tensor<8xf32>
// SP: %[[AG:.*]] = mt.all_gather %[[A]] on @mesh axes = ["tp"] dim = 1 : tensor<2x2x8xf32> -> tensor<2x4x8xf32>
// SP: mt.linear %[[AG]], %{{.*}} : tensor<2x4x8xf32>, tensor<12x8xf32> -> tensor<2x4x12xf32>
// SP: %[[PROJ:.*]] = mt.linear %{{.*}}, %{{[a-z0-9]+}} : tensor<2x4x4xf32>, tensor<8x4xf32> -> tensor<2x4x8xf32>
// SP: %[[PROJS:.*]] = mt.reduce_scatter %[[PROJ]] on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<2x4x8xf32> -> tensor<2x2x8xf32>
// SP: %[[BIAS:.*]] = mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<8xf32>
// SP: mt.add %[[PROJS]], %[[BIAS]] : tensor<2x2x8xf32>, tensor<8xf32>
// SP: mt.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 1
// SP: mt.reduce_scatter
// SP: mt.yield %{{.*}} : tensor<2x2x8xf32>
// SP: %[[HG:.*]] = mt.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 1 : tensor<2x2x8xf32> -> tensor<2x4x8xf32>
// SP: mt.linear %[[HG]], %{{.*}} : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
// SP: mt.cross_entropy_from_stats
func.func @mini(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
    %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.0e-02>},
    %wpe: tensor<4x8xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 2.0e-02>},
    %ln_w: tensor<1x8xf32> {mt.param = #mt.param<name = "h.ln.weight", init = ones>},
    %ln_b: tensor<1x8xf32> {mt.param = #mt.param<name = "h.ln.bias", init = zeros>},
    %qkv_w: tensor<1x24x8xf32> {mt.param = #mt.param<name = "h.attn.qkv.weight", init = normal, std = 2.0e-02>},
    %proj_w: tensor<1x8x8xf32> {mt.param = #mt.param<name = "h.attn.proj.weight", init = normal, std = 2.0e-02>},
    %proj_b: tensor<1x8xf32> {mt.param = #mt.param<name = "h.attn.proj.bias", init = zeros>},
    %fc_w: tensor<1x32x8xf32> {mt.param = #mt.param<name = "h.mlp.fc.weight", init = normal, std = 2.0e-02>},
    %fc_b: tensor<1x32xf32> {mt.param = #mt.param<name = "h.mlp.fc.bias", init = zeros>},
    %out_w: tensor<1x8x32xf32> {mt.param = #mt.param<name = "h.mlp.proj.weight", init = normal, std = 2.0e-02>}) -> tensor<f32> {
  %tok = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %pos = mt.position_embedding %wpe for %tokens : tensor<4x8xf32>, tensor<2x4xi32> -> tensor<4x8xf32>
  %x = mt.add %tok, %pos : tensor<2x4x8xf32>, tensor<4x8xf32>
  %h = mt.layer_stack (%hid = %x : tensor<2x4x8xf32>) layers (%lw = %ln_w : tensor<1x8xf32>, %lb = %ln_b : tensor<1x8xf32>,
        %qw = %qkv_w : tensor<1x24x8xf32>, %pw = %proj_w : tensor<1x8x8xf32>, %pb = %proj_b : tensor<1x8xf32>,
        %fw = %fc_w : tensor<1x32x8xf32>, %fb = %fc_b : tensor<1x32xf32>, %ow = %out_w : tensor<1x8x32xf32>) -> tensor<2x4x8xf32> {
    %a = mt.layer_norm %hid, %lw, %lb {epsilon = 1.0e-05 : f64} : tensor<2x4x8xf32>, tensor<8xf32>
    %qkv = mt.linear %a, %qw : tensor<2x4x8xf32>, tensor<24x8xf32> -> tensor<2x4x24xf32>
    %q, %k, %v = mt.split %qkv {dim = 2 : i64, sizes = array<i64: 8, 8, 8>} : tensor<2x4x24xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
    %qh = mt.split_heads %q {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
    %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
    %vh = mt.split_heads %v {num_heads = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x2x4x4xf32>
    %s = mt.attention_scores %qh, %kh : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
    %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x2x4x4xf32>
    %c = mt.attention_context %p, %vh : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
    %m = mt.merge_heads %c : tensor<2x2x4x4xf32> -> tensor<2x4x8xf32>
    %o = mt.linear %m, %pw, %pb : tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
    %r1 = mt.add %hid, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
    %f = mt.linear %r1, %fw, %fb : tensor<2x4x8xf32>, tensor<32x8xf32>, tensor<32xf32> -> tensor<2x4x32xf32>
    %g = mt.gelu %f approximate = tanh : tensor<2x4x32xf32>
    %d = mt.linear %g, %ow : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
    %r2 = mt.add %r1, %d : tensor<2x4x8xf32>, tensor<2x4x8xf32>
    mt.yield %r2 : tensor<2x4x8xf32>
  }
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
