//===- MTAttentionOps.td - attention building blocks and positions --------===//
#ifndef MT_ATTENTION_OPS_TD
#define MT_ATTENTION_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"

def MT_SplitHeadsOp : MT_Op<"split_heads", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "[batch, seq, heads*head_dim] -> [batch, heads, seq, head_dim]";
  let description = [{
    Views the hidden dimension as `num_heads` heads and moves the head
    dimension in front of the sequence. Tensor parallelism splits the head
    dimension across ranks.

    ```mlir
    %qh = mt.split_heads %q {num_heads = 12 : i64} : tensor<8x1024x768xf32> -> tensor<8x12x1024x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$num_heads);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_MergeHeadsOp : MT_Op<"merge_heads", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "[batch, heads, seq, head_dim] -> [batch, seq, heads*head_dim]";
  let description = [{
    The inverse of `mt.split_heads`.

    ```mlir
    %m = mt.merge_heads %ctx : tensor<8x12x1024x64xf32> -> tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_AttentionScoresOp : MT_Op<"attention_scores", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, DeclareOpInterfaceMethods<MT_ContractionOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "raw attention scores Q K^T per head";
  let description = [{
    `result[b, h, i, j] = sum_d query[b, h, i, d] * key[b, h / g, j, d]` where
    `g = heads(query) / heads(key)`: with fewer key heads than query heads,
    each key head serves a group of `g` query heads (grouped-query attention;
    one key head is multi-query attention). Scaling belongs to `mt.softmax`.

    ```mlir
    %s = mt.attention_scores %q, %k : tensor<8x12x1024x64xf32>, tensor<8x4x1024x64xf32> -> tensor<8x12x1024x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $query `,` $key attr-dict `:` type($query) `,` type($key) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_AttentionContextOp : MT_Op<"attention_context", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, DeclareOpInterfaceMethods<MT_ContractionOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "attention-weighted sum of values per head";
  let description = [{
    `result[b, h, i, d] = sum_j probs[b, h, i, j] * value[b, h / g, j, d]`,
    with the same grouping of query heads over value heads as
    `mt.attention_scores`.

    ```mlir
    %c = mt.attention_context %p, %v : tensor<8x12x1024x1024xf32>, tensor<8x4x1024x64xf32> -> tensor<8x12x1024x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$probs, AnyRankedTensor:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $probs `,` $value attr-dict `:` type($probs) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_RotaryOp : MT_Op<"rotary", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding of queries or keys";
  let description = [{
    Rotates consecutive pairs `(x[2i], x[2i+1])` of the first `rotary_dim`
    features of each head (all of them by default) by the angle
    `pos * base^(-2i/rotary_dim)`, where `pos` is the sequence position plus
    `position_offset`. Input is `[batch, heads, seq, head_dim]`. With
    `inverse`, the rotation is by the negative angle: the op's own
    vector-Jacobian product. With `at` (a `tensor<i64>`, for decoding with a
    KV cache), the run-time position is added to the offset too; with `at` a
    `tensor<Bxi64>` (`B` = the batch), row `b`'s position `position[b]` is
    (a ragged batch: a padding token's negative position counts as 0).

    ```mlir
    %qr = mt.rotary %q {base = 1.0e+04 : f64} : tensor<8x12x1024x64xf32>
    %kr = mt.rotary %k at %pos : tensor<i64> {base = 1.0e+04 : f64} : tensor<1x8x1x128xf32>
    %kb = mt.rotary %k at %rows : tensor<4xi64> {base = 1.0e+04 : f64} : tensor<4x8x16x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Optional<AnyRankedTensor>:$position,
                       DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       OptionalAttr<I64Attr>:$rotary_dim,
                       DefaultValuedAttr<I64Attr, "0">:$position_offset,
                       UnitAttr:$inverse);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input (`at` $position^ `:` type($position))? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_AlibiOp : MT_Op<"alibi", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, AttrSizedOperandSegments, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "adds ALiBi linear position biases to attention scores";
  let description = [{
    `result[b, h, i, j] = scores[b, h, i, j] - slope_scale * m_h * (i + Sk - Sq - j)`,
    with the head slopes `m_h` of Press et al. (a geometric sequence from
    `2^(-8/H)` for `H = num_heads`, interleaved when H is not a power of
    two). Press et al. add `m_h * (j - i)` to the scaled scores
    `q.k / sqrt(d)`; ahead of an `mt.softmax` whose `scale` is `1/sqrt(d)`,
    `slope_scale = sqrt(d)` gives exactly that (default 1: scores already
    scaled). `num_heads` is the model's total head count, so a shard that holds
    heads `[h0, h0 + n)` of them uses their global slopes. With `position`
    (a `tensor<i64>`: the keys are a KV cache and query `i` stands at
    `position + i`), the distance is `position + i - j`. With `shard` (a
    `tensor<i64>`: tensor parallelism's rank index), the input holds heads
    `[shard * n, (shard + 1) * n)` of the `num_heads` for `n` heads present.

    ```mlir
    %sb = mt.alibi %s {num_heads = 12 : i64, slope_scale = 8.0 : f64} : tensor<8x12x1024x1024xf32>
    %sc = mt.alibi %c position %pos : tensor<i64> {num_heads = 12 : i64} : tensor<1x12x1x1024xf32>
    %sd = mt.alibi %s shard %rank : tensor<i64> {num_heads = 24 : i64} : tensor<8x12x1024x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Optional<AnyRankedTensor>:$position,
                       Optional<AnyRankedTensor>:$shard, I64Attr:$num_heads,
                       DefaultValuedAttr<F64Attr, "1.0">:$slope_scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`position` $position^ `:` type($position))? (`shard` $shard^ `:` type($shard))? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def MT_RelativePositionBiasOp : MT_Op<"relative_position_bias", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "adds T5's bucketed relative position biases to attention scores";
  let description = [{
    `result[b, h, i, j] = scores[b, h, i, j] + table[bucket(j - i), h]`, the
    relative attention bias of T5 (Raffel et al. 2020) as Hugging Face's
    `T5Attention` computes it. `table` is `[num_buckets, heads]`. `bucket`
    maps a relative distance to one of `num_buckets` buckets: half of them
    (or all, for a causal decoder, which sees only keys at or before the
    query) hold exact distances up to `num_buckets / 4` (`/ 2`), the rest
    grow logarithmically up to `max_distance`, beyond which distances share
    the last bucket. With `bidirectional`, keys after the query use the
    upper half of the buckets. The logarithm is taken in f32 and truncated,
    as in Hugging Face's code. A model shares one table across a stack's
    layers by using the same parameter in every layer; tensor parallelism
    splits the table's heads with the scores'. With `position` (a
    `tensor<i64>`: the keys are a KV cache and query `i` stands at
    `position + i`), the distance is `j - position - i`; such a bias is for
    inference and has no gradient.

    ```mlir
    %sb = mt.relative_position_bias %s, %rel {bidirectional, max_distance = 128 : i64} : tensor<8x8x512x512xf32>, tensor<32x8xf32>
    %sc = mt.relative_position_bias %c, %rel position %pos : tensor<i64> {max_distance = 128 : i64} : tensor<4x8x1x512xf32>, tensor<32x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$table,
                       Optional<AnyRankedTensor>:$position,
                       UnitAttr:$bidirectional,
                       DefaultValuedAttr<I64Attr, "128">:$max_distance);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $table (`position` $position^ `:` type($position))? attr-dict `:` type($input) `,` type($table)
  }];
  let hasVerifier = 1;
}

// Pure: the dropout mask is a function of the key, as in mt.dropout.
def MT_FusedAttentionOp : MT_Op<"fused_attention", [MT_Differentiable, MT_DropoutKeyedOpInterface, Pure,
    DeclareOpInterfaceMethods<MT_ContractionOpInterface, ["getFlops"]>,
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "scores, masked softmax, dropout and context in one kernel";
  let description = [{
    What `mt.attention_scores`, `mt.softmax`, `mt.dropout` and
    `mt.attention_context` (and `mt.merge_heads` when the output is
    `[batch, Sq, heads*head_dim]`) compute, without the `[batch, heads, Sq,
    Sk]` score matrix: FlashAttention's algorithm. Each query row walks the
    keys in tiles of `block_keys`, keeps a running maximum and sum of its
    exponentials (the online softmax) and rescales its output accumulator
    when the maximum grows. `scale`, `mask` and `key_mask` mean what they
    mean in `mt.softmax`; a row whose every key is hidden gives zeros. The
    dropout of the probabilities is the one `mt.dropout` with the same key
    (`seed`, `rate`, `stream`, `layer`, `shard`, `shard_dim`, `shard_parts`)
    draws for the `[batch, heads, Sq, Sk]` probabilities, element for
    element. Keys and values may have fewer heads than the query
    (grouped-query attention), as in `mt.attention_scores`.

    The second result is each query row's log-sum-exp of its scaled scores,
    `[batch, heads, Sq]` in f32 (f64 for f64 inputs), -inf for a row with
    every key hidden: the
    backward recomputes the probabilities from it, tile by tile. Sums run
    in another order than the unfused ops', so results agree with them to
    rounding, not bit for bit.

    ```mlir
    %o, %lse = mt.fused_attention %q, %k, %v seed %seed : tensor<i64> {scale = 0.125 : f64, mask = #mt<mask causal>, rate = 1.000000e-01 : f64, stream = 1 : i64} : tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32> -> tensor<8x1024x768xf32>, tensor<8x12x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key, AnyRankedTensor:$value,
                       Optional<AnyRankedTensor>:$key_mask,
                       Optional<AnyRankedTensor>:$seed,
                       Optional<AnyRankedTensor>:$shard,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale,
                       DefaultValuedAttr<MT_MaskKindAttr, "::mt::MaskKind::none">:$mask,
                       DefaultValuedAttr<F64Attr, "0.0">:$rate,
                       DefaultValuedAttr<I64Attr, "0">:$stream,
                       OptionalAttr<I64Attr>:$layer,
                       OptionalAttr<I64Attr>:$shard_dim, OptionalAttr<I64Attr>:$shard_parts,
                       DefaultValuedAttr<I64Attr, "64">:$block_keys);
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`key_mask` $key_mask^ `:` type($key_mask))? (`seed` $seed^ `:` type($seed))? (`shard` $shard^ `:` type($shard))? attr-dict `:` type($query) `,` type($key) `,` type($value) `->` type($output) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def MT_CacheInsertOp : MT_Op<"cache_insert", [MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_InPlaceOpInterface>, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["cache", "result"]>]> {
  let summary = "writes new keys or values into a KV cache";
  let description = [{
    The cache `[batch, heads, capacity, head_dim]` with the `n` positions of
    `update` (`[batch, heads, n, head_dim]`) written at sequence positions
    `[position, position + n)`: `result[b, h, position + i, d] =
    update[b, h, i, d]`, every other element as in `cache`. The result takes
    the cache's buffer (it is updated in place). The caller keeps
    `position + n <= capacity`; the write is clamped to the cache. Inference
    only: the op has no gradient.

    ```mlir
    %k2 = mt.cache_insert %k into %kcache at %pos : tensor<1x12x1x64xf32> into tensor<1x12x1024x64xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$cache, AnyRankedTensor:$update,
                       AnyRankedTensor:$position);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $update `into` $cache `at` $position attr-dict `:` type($update) `into` type($cache) `,` type($position)
  }];
  let hasVerifier = 1;
}

#endif // MT_ATTENTION_OPS_TD
