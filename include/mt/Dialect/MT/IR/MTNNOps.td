//===- MTNNOps.td - embeddings, linear algebra, norms, dropout, sums -------===//
#ifndef MT_NN_OPS_TD
#define MT_NN_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"

def MT_EmbeddingOp : MT_Op<"embedding", [MT_Differentiable, MT_TensorParallel, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "looks up token embeddings";
  let description = [{
    `result[..., :] = table[ids[...], :]`. The table is `[vocab, hidden]`; its
    leading dimension is the vocabulary, which vocab padding and
    vocab-parallel sharding act on.

    With `shard` (a `tensor<i64>`, usually an `mt.axis_index`), the table is
    piece number `shard` of a vocabulary split into equal pieces: it holds
    rows `[shard * vocab, (shard + 1) * vocab)` of the whole table, ids
    outside that range give zeros, and the ranks' results add up to the
    lookup in the whole table (Megatron's vocab-parallel embedding).

    ```mlir
    %e = mt.embedding %wte[%tokens] : tensor<50257x768xf32>, tensor<8x1024xi32> -> tensor<8x1024x768xf32>
    %p = mt.embedding %wte_shard[%tokens] shard %i : tensor<i64> : tensor<25216x768xf32>, tensor<8x1024xi32> -> tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$table, AnyRankedTensor:$ids,
                       Optional<AnyRankedTensor>:$shard);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $table `[` $ids `]` (`shard` $shard^ `:` type($shard))? attr-dict `:` type($table) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_PositionEmbeddingOp : MT_Op<"position_embedding", [MT_Differentiable, MT_TensorParallel, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "absolute position embeddings for a batch of sequences";
  let description = [{
    `result[s, :] = table[s, :]` for the positions `s` of `ids`' sequence
    dimension (its last dimension). The result has no batch dimension; add it
    to the token embeddings with `mt.add`, which broadcasts over leading
    dimensions.

    With `at` (a `tensor<i64>`, for decoding with a KV cache), the tokens
    stand at positions `position + s`: `result[s, :] = table[position + s, :]`.
    The caller keeps `position + seq` within the table; the rows read are
    clamped to it. With `at` a `tensor<Bxi64>` (`B` = `ids`' first
    dimension), each row of a batch stands at a position of its own (a
    ragged batch, its rows left-padded): `result[b, s, :] = table[p, :]` for
    `p = position[b] + s` clamped to the table (a padding token's negative
    position reads row 0). Such an op has no gradient: it is for inference.

    ```mlir
    %p = mt.position_embedding %wpe for %tokens : tensor<1024x768xf32>, tensor<8x1024xi32> -> tensor<1024x768xf32>
    %q = mt.position_embedding %wpe for %token at %pos : tensor<i64> : tensor<1024x768xf32>, tensor<1x1xi32> -> tensor<1x768xf32>
    %r = mt.position_embedding %wpe for %tokens at %rows : tensor<4xi64> : tensor<1024x768xf32>, tensor<4x16xi32> -> tensor<4x16x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$table, AnyRankedTensor:$ids,
                       Optional<AnyRankedTensor>:$position);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $table `for` $ids (`at` $position^ `:` type($position))? attr-dict `:` type($table) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_LinearOp : MT_Op<"linear", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, DeclareOpInterfaceMethods<MT_ContractionOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "a dense layer: x W^T + b";
  let description = [{
    `result[..., n] = sum_k input[..., k] * weight[n, k] + bias[n]`. The weight
    is `[out_features, in_features]`, so a tied language-model head is a
    linear whose weight is the word-embedding table. Tensor parallelism
    splits the weight by rows (column-parallel) or columns (row-parallel).

    ```mlir
    %y = mt.linear %x, %w, %b : tensor<8x1024x768xf32>, tensor<2304x768xf32>, tensor<2304xf32> -> tensor<8x1024x2304xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$weight,
                       Optional<AnyRankedTensor>:$bias);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_MatmulOp : MT_Op<"matmul", [MT_RunsIn16Bits, MT_Differentiable, Pure, DeclareOpInterfaceMethods<MT_ContractionOpInterface>, DeclareOpInterfaceMethods<MT_InPlaceOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "batched matrix product with optional transposes";
  let description = [{
    `result[b..., m, n] = sum_k A[b..., m, k] * B[b..., k, n]`, where `A` is
    `lhs` or, with `transpose_lhs`, its last two dimensions swapped (and
    likewise `B`). Both operands have the same batch dimensions, or `rhs` is a
    plain matrix shared by every batch. With `plus`, that tensor (of the
    result's type) is added: the product accumulates into it, in its buffer
    where nothing reads it afterwards. mt-fuse-gradient-accumulation makes
    weight-gradient GEMMs accumulate this way into the gradient accumulator.

    ```mlir
    %c = mt.matmul %a, %b {transpose_rhs} : tensor<4x16x32xf32>, tensor<4x8x32xf32> -> tensor<4x16x8xf32>
    %dw = mt.matmul %x, %dy plus %acc : tensor<32x16xf32> {transpose_lhs} : tensor<64x32xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       Optional<AnyRankedTensor>:$plus);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`plus` $plus^ `:` type($plus))? attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   CArg<"bool", "false">:$transposeLhs, CArg<"bool", "false">:$transposeRhs), [{
      build($_builder, $_state, result, lhs, rhs, transposeLhs, transposeRhs, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def MT_LayerNormOp : MT_Op<"layer_norm", [MT_RunsIn16Bits, MT_Differentiable, MT_TensorParallel, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["gamma", "beta"]>,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with mean and (biased)
    variance over the last dimension.

    ```mlir
    %y = mt.layer_norm %x, %g, %b {epsilon = 1.0e-05 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$gamma,
                       AnyRankedTensor:$beta, F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MT_AddLayerNormOp : MT_Op<"add_layer_norm", [MT_RunsIn16Bits, MT_Differentiable, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>,
    AllTypesMatch<["input", "residual", "sum", "result"]>, AllTypesMatch<["gamma", "beta"]>]> {
  let summary = "residual add and the layer norm of the sum, in one kernel";
  let description = [{
    `sum = input + residual` and `result = layer_norm(sum)` with the
    semantics of `mt.layer_norm`. Both are returned: the sum goes on down the
    residual stream, the normalized tensor into the next sublayer.
    mt-fuse-add-layer-norm makes it from an `mt.add` of two tensors of one
    type whose sum an `mt.layer_norm` reads, so each row of the sum is
    written once and normalized while it is in cache, instead of written,
    read back for the statistics and read again to normalize. Its gradient
    is one `mt.layer_norm_grad` that adds the sum's own gradient into the
    input gradient (`plus`).

    ```mlir
    %s, %y = mt.add_layer_norm %x, %r, %g, %b {epsilon = 1.0e-05 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$residual,
                       AnyRankedTensor:$gamma, AnyRankedTensor:$beta, F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$sum, AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $residual `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MT_RmsNormOp : MT_Op<"rms_norm", [MT_RunsIn16Bits, MT_Differentiable, MT_TensorParallel, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "RMS normalization over the last dimension";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * gamma`, over the last dimension.

    ```mlir
    %y = mt.rms_norm %x, %g {epsilon = 1.0e-06 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$gamma,
                       F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `,` $gamma attr-dict `:` type($input) `,` type($gamma)";
  let hasVerifier = 1;
}

def MT_SoftmaxOp : MT_Op<"softmax", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure, AttrSizedOperandSegments, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "scaled, masked softmax over the last dimension";
  let description = [{
    `softmax(scale * x + mask)` over the last dimension. `mask = causal` hides
    key positions after the query's (query `i` of `Sq` sees keys
    `j <= i + Sk - Sq`); the optional `key_mask` (`[batch, Sk]`, i1, true =
    keep) hides padding keys. Rows whose every key is hidden give zeros.

    With `position` (a `tensor<i64>`, only with `mask = causal`), the keys are
    a KV cache and query `i` stands at sequence position `position + i`: it
    sees keys `j <= position + i`, so cache slots not filled yet stay hidden.

    ```mlir
    %p = mt.softmax %s {scale = 0.125 : f64, mask = #mt<mask causal>} : tensor<8x12x1024x1024xf32>
    %d = mt.softmax %c position %pos : tensor<i64> {scale = 0.125 : f64, mask = #mt<mask causal>} : tensor<1x12x1x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Optional<AnyRankedTensor>:$key_mask,
                       Optional<AnyRankedTensor>:$position,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale,
                       DefaultValuedAttr<MT_MaskKindAttr, "::mt::MaskKind::none">:$mask);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`key_mask` $key_mask^ `:` type($key_mask))? (`position` $position^ `:` type($position))? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

// Pure: the mask is a function of the key, so equal inputs and keys give equal
// results.
def MT_LogSoftmaxOp : MT_Op<"log_softmax", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "logarithm of the softmax over the last dimension";
  let description = [{
    `result = input - max - log(sum(exp(input - max)))` along the last
    dimension, without forming the probabilities: a classifier's
    log-probabilities, which sampling and beam search score with. Its
    gradient is `mt.log_softmax_grad`. Tensor parallelism may split any
    dimension but the last.

    ```mlir
    %lp = mt.log_softmax %logits : tensor<8x1024x50304xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_DropoutOp : MT_Op<"dropout", [MT_RunsIn16Bits, MT_Differentiable, MT_DropoutKeyedReplaced, MT_SplitFlow, Pure, AttrSizedOperandSegments, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "inverted dropout with a counter-based, position-keyed mask";
  let description = [{
    Zeroes each element with probability `rate` and scales the rest by
    `1/(1-rate)`. The mask is a pure function of (`seed`, `stream`, layer
    index, global element position), never of the rank, so every parallel
    layout draws the same mask. `seed` is an optional `tensor<i64>` operand
    (the example models take one per micro-batch from the runtime); without
    it the seed is 0. `stream` tells the model's dropout sites apart. `layer` is the index of the layer the op belongs to once a
    `mt.layer_stack` is unrolled (inside a stack body the layer index is
    implicit; outside any stack there is none). Applied to a gradient with
    the same key, the op is its own vector-Jacobian product.

    When the input is one piece of a tensor split into `shard_parts` equal
    pieces along `shard_dim` (attention heads under tensor parallelism, the
    sequence under sequence parallelism), `shard` (a `tensor<i64>`) says which
    piece, and positions are counted in the whole tensor.

    ```mlir
    %y = mt.dropout %x {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<8x1024x768xf32>
    %z = mt.dropout %p seed %s : tensor<i64> shard %i : tensor<i64> {rate = 1.0e-01 : f64, stream = 1 : i64,
                                   shard_dim = 1 : i64, shard_parts = 2 : i64} : tensor<8x6x1024x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Optional<AnyRankedTensor>:$seed,
                       Optional<AnyRankedTensor>:$shard,
                       F64Attr:$rate, I64Attr:$stream, OptionalAttr<I64Attr>:$layer,
                       OptionalAttr<I64Attr>:$shard_dim, OptionalAttr<I64Attr>:$shard_parts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`seed` $seed^ `:` type($seed))? (`shard` $shard^ `:` type($shard))? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def MT_BiasDropoutAddOp : MT_Op<"bias_dropout_add", [MT_RunsIn16Bits, MT_Differentiable, MT_DropoutKeyedReplaced, Pure, AttrSizedOperandSegments,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "residual", "result"]>]> {
  let summary = "residual + dropout(input + bias), in one kernel";
  let description = [{
    Adds the bias (broadcast over the last dimension), applies the dropout of
    `mt.dropout` with the same key (`seed`, `stream`, `layer`, and the shard
    of a split tensor), and adds the residual. mt-fuse-bias-dropout-add makes
    it from a bias add, the dropout after it and the residual add after
    that, so neither the biased sum nor the dropped-out tensor goes to
    memory (Megatron's bias-dropout-add fusion). The mask is the one
    `mt.dropout` with this key draws, element for element.

    ```mlir
    %y = mt.bias_dropout_add %h, %b, %x seed %s : tensor<i64> {rate = 1.0e-01 : f64, stream = 2 : i64} : tensor<8x1024x768xbf16>, tensor<768xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$bias, AnyRankedTensor:$residual,
                       Optional<AnyRankedTensor>:$seed, Optional<AnyRankedTensor>:$shard,
                       F64Attr:$rate, I64Attr:$stream, OptionalAttr<I64Attr>:$layer,
                       OptionalAttr<I64Attr>:$shard_dim, OptionalAttr<I64Attr>:$shard_parts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $bias `,` $residual (`seed` $seed^ `:` type($seed))? (`shard` $shard^ `:` type($shard))?
    attr-dict `:` type($input) `,` type($bias)
  }];
  let hasVerifier = 1;
}

def MT_DropoutMaskOp : MT_Op<"dropout_mask", [Pure, MT_DropoutKeyedOpInterface, AttrSizedOperandSegments]> {
  let summary = "the keep-mask `mt.dropout` would draw, as a tensor of i1";
  let description = [{
    True where `mt.dropout` with the same `seed`, `stream`, `layer` and shard
    keeps an element: the mask is the same pure function of the key and the
    global element position. With `mt.masked_scale` it stores a dropout's
    mask (one byte per element) instead of drawing it again in the backward
    pass, as Megatron does (mt-store-dropout-masks).

    ```mlir
    %m = mt.dropout_mask seed %s : tensor<i64> {rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<8x1024x768xi1>
    ```
  }];
  let arguments = (ins Optional<AnyRankedTensor>:$seed, Optional<AnyRankedTensor>:$shard,
                       F64Attr:$rate, I64Attr:$stream, OptionalAttr<I64Attr>:$layer,
                       OptionalAttr<I64Attr>:$shard_dim, OptionalAttr<I64Attr>:$shard_parts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    (`seed` $seed^ `:` type($seed))? (`shard` $shard^ `:` type($shard))? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def MT_MaskedScaleOp : MT_Op<"masked_scale", [MT_Differentiable, MT_Pointwise, Pure, MT_ShapeInferenceOpInterface,
                                               AllTypesMatch<["input", "result"]>]> {
  let summary = "keeps the elements a mask selects, scaled; zeroes the rest";
  let description = [{
    `result = mask ? input * scale : 0`. Dropout with a stored mask: forward
    and backward apply the same mask (its vector-Jacobian product is itself).

    ```mlir
    %y = mt.masked_scale %x, %m {scale = 1.1111111 : f64} : tensor<8x1024x768xf32>, tensor<8x1024x768xi1>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$mask, F64Attr:$scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` type($input) `,` type($mask)
  }];
  let hasVerifier = 1;
}

class MT_BroadcastBinaryOp<string mnemonic, string formula, Trait pointwise = MT_Pointwise>
    : MT_Op<mnemonic, [Pure, MT_Differentiable, pointwise, MT_ShapeInferenceOpInterface,
                              AllTypesMatch<["lhs", "result"]>]> {
  let summary = "elementwise " # formula # " with trailing broadcast";
  let description = [{
    Elementwise `}] # formula # [{`. `rhs` has the shape of `lhs` or of a
    suffix of it and is broadcast over the leading dimensions (a bias, a
    position embedding).

    ```mlir
    %z = mt.}] # mnemonic # [{ %x, %y : tensor<8x1024x768xf32>, tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasVerifier = 1;
}

// A product passes a feature split through (SwiGLU's gate times up, both
// column-parallel); a sum does not, so a residual stream stays whole.
def MT_AddOp : MT_BroadcastBinaryOp<"add", "lhs + rhs",
    DeclareOpInterfaceMethods<MT_PointwiseOpInterface, ["carriesSplit"]>>;

def MT_MulOp : MT_BroadcastBinaryOp<"mul", "lhs * rhs">;

def MT_SplitOp : MT_Op<"split", [MT_RunsIn16Bits, MT_Differentiable, MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "splits a tensor into consecutive pieces along one dimension";
  let description = [{
    Result `i` is the slice of `input` along `dim` that starts at
    `sizes[0] + ... + sizes[i-1]` and has length `sizes[i]` (a fused QKV
    projection into Q, K and V).

    ```mlir
    %q, %k, %v = mt.split %qkv {dim = 2 : i64, sizes = array<i64: 768, 768, 768>} : tensor<8x1024x2304xf32> -> tensor<8x1024x768xf32>, tensor<8x1024x768xf32>, tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$dim,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($results)";
  let hasVerifier = 1;
}

#endif // MT_NN_OPS_TD
