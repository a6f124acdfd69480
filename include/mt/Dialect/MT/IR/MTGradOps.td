//===- MTGradOps.td - backward ops the autodiff pass emits ----------------===//
//
// Vector-Jacobian products that are not themselves forward ops. Where a
// forward op already computes a VJP (dropout with the same key, matmul with
// transposes, split_heads/merge_heads, attention_scores/attention_context),
// autodiff reuses it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_GRAD_OPS_TD
#define MT_GRAD_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_EmbeddingGradOp : MT_Op<"embedding_grad", [Pure, AttrSizedOperandSegments, DeclareOpInterfaceMethods<MT_InPlaceOpInterface>]> {
  let summary = "scatter-adds output gradients into table rows";
  let description = [{
    `result[v, :] = sum over positions p with ids[p] == v of grad[p, :]`: the
    gradient of `mt.embedding`'s table. The result is the table's type.
    With `shard`, the result is that piece of a vocabulary split into equal
    pieces, as for `mt.embedding`: ids outside it contribute nothing. With
    `plus`, the rows are scatter-added into that tensor instead of zeros (the
    gradient accumulator, see mt-fuse-gradient-accumulation).

    ```mlir
    %dwte = mt.embedding_grad %de[%tokens] : tensor<8x1024x768xf32>, tensor<8x1024xi32> -> tensor<50257x768xf32>
    %acc2 = mt.embedding_grad %de[%tokens] plus %acc : tensor<50257x768xf32> : tensor<8x1024x768xf32>, tensor<8x1024xi32> -> tensor<50257x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$ids,
                       Optional<AnyRankedTensor>:$shard, Optional<AnyRankedTensor>:$plus);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad `[` $ids `]` (`shard` $shard^ `:` type($shard))? (`plus` $plus^ `:` type($plus))? attr-dict `:` type($grad) `,` type($ids) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$grad, "::mlir::Value":$ids,
                   CArg<"::mlir::Value", "{}">:$shard), [{
      build($_builder, $_state, result, grad, ids, shard, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def MT_PositionEmbeddingGradOp : MT_Op<"position_embedding_grad", [Pure]> {
  let summary = "the position table's gradient: rows past the sequence are zero";
  let description = [{
    `result[s, :] = grad[s, :]` for `s < seq`, zero after: the gradient of
    `mt.position_embedding`'s table.

    ```mlir
    %dwpe = mt.position_embedding_grad %dp : tensor<512x768xf32> -> tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def MT_LayerNormGradOp : MT_Op<"layer_norm_grad", [Pure,
    AllTypesMatch<["grad", "input", "grad_input"]>,
    AllTypesMatch<["gamma", "grad_gamma", "grad_beta"]>]> {
  let summary = "gradients of mt.layer_norm with respect to input, gamma and beta";
  let description = [{
    Given `grad` of the output, the forward `input` and `gamma`, returns the
    gradients of input, gamma and beta (the last two summed over all leading
    dimensions), recomputing mean and variance. With `plus`, that tensor is
    added to the input gradient in the same kernel: the gradient of
    `mt.add_layer_norm`, whose sum has readers of its own.

    ```mlir
    %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-05 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    %dr, %dg2, %db2 = mt.layer_norm_grad %dy, %x, %g plus %ds : tensor<8x1024x768xf32> {epsilon = 1.0e-05 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                       AnyRankedTensor:$gamma, Optional<AnyRankedTensor>:$residual_grad,
                       F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$grad_input, AnyRankedTensor:$grad_gamma,
                      AnyRankedTensor:$grad_beta);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma (`plus` $residual_grad^ `:` type($residual_grad))? attr-dict `:` type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MT_RmsNormGradOp : MT_Op<"rms_norm_grad", [Pure,
    AllTypesMatch<["grad", "input", "grad_input"]>,
    AllTypesMatch<["gamma", "grad_gamma"]>]> {
  let summary = "gradients of mt.rms_norm with respect to input and gamma";
  let description = [{
    ```mlir
    %dx, %dg = mt.rms_norm_grad %dy, %x, %g {epsilon = 1.0e-06 : f64} : tensor<8x1024x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                       AnyRankedTensor:$gamma, F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$grad_input, AnyRankedTensor:$grad_gamma);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma attr-dict `:` type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def MT_GeluGradOp : MT_Op<"gelu_grad", [MT_Pointwise, Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "grad * gelu'(input)";
  let description = [{
    ```mlir
    %dx = mt.gelu_grad %dy, %x approximate = tanh : tensor<8x1024x3072xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                       MT_GeluApproximationAttr:$approximate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `approximate` `=` `` $approximate attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def MT_BiasGeluGradOp : MT_Op<"bias_gelu_grad", [Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "grad * gelu'(input + bias), in one kernel";
  let description = [{
    The gradient of `mt.bias_gelu` with respect to its input (and, summed
    over the leading dimensions, its bias), recomputing the sum on the fly.

    ```mlir
    %dh = mt.bias_gelu_grad %dy, %h, %b approximate = tanh : tensor<8x1024x3072xbf16>, tensor<3072xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input, AnyRankedTensor:$bias,
                       MT_GeluApproximationAttr:$approximate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `,` $bias `approximate` `=` `` $approximate attr-dict `:` type($input) `,` type($bias)
  }];
  let hasVerifier = 1;
}

def MT_FusedAttentionGradOp : MT_Op<"fused_attention_grad", [Pure, MT_DropoutKeyedOpInterface, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MT_ContractionOpInterface, ["getFlops"]>,
    AllTypesMatch<["grad_output", "output"]>, AllTypesMatch<["query", "grad_query"]>,
    AllTypesMatch<["key", "grad_key"]>, AllTypesMatch<["value", "grad_value"]>]> {
  let summary = "gradient of mt.fused_attention from its output and log-sum-exp";
  let description = [{
    The gradients of `mt.fused_attention`'s query, key and value, given the
    output's gradient, with the same key, masks and attributes. Nothing
    score-sized is read or written: each tile's probabilities come back from
    the saved log-sum-exp. One kernel walks the query rows (the query's
    gradient), another the key rows (the key's and value's, summing a key
    head's query group in a fixed order), so there are no atomic sums and
    the result does not depend on the target.

    ```mlir
    %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64, mask = #mt<mask causal>} : tensor<8x1024x768xf32>, tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32>, tensor<8x12x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad_output, AnyRankedTensor:$query,
                       AnyRankedTensor:$key, AnyRankedTensor:$value,
                       AnyRankedTensor:$output, AnyRankedTensor:$lse,
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
  let results = (outs AnyRankedTensor:$grad_query, AnyRankedTensor:$grad_key,
                      AnyRankedTensor:$grad_value);
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse (`key_mask` $key_mask^ `:` type($key_mask))? (`seed` $seed^ `:` type($seed))? (`shard` $shard^ `:` type($shard))? attr-dict `:` type($output) `,` type($query) `,` type($key) `,` type($value) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def MT_LogSoftmaxGradOp : MT_Op<"log_softmax_grad", [MT_RunsIn16Bits, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["grad", "output", "result"]>]> {
  let summary = "vector-Jacobian product of mt.log_softmax";
  let description = [{
    `grad - exp(output) * sum(grad)` along the last dimension: the gradient
    reaching `mt.log_softmax`'s input, given the gradient `grad` of its
    result `output` (whose exponential is the softmax).

    ```mlir
    %dx = mt.log_softmax_grad %dlp, %lp : tensor<8x1024x50304xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$output);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MT_SoftmaxGradOp : MT_Op<"softmax_grad", [Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "output", "result"]>]> {
  let summary = "gradient of mt.softmax from its output";
  let description = [{
    `result = scale * output * (grad - sum(grad * output))`, the sum over the
    last dimension. Masked positions have `output = 0` and get no gradient.

    ```mlir
    %ds = mt.softmax_grad %dp, %p {scale = 0.125 : f64} : tensor<8x12x1024x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$output,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def MT_RelativePositionBiasGradOp : MT_Op<"relative_position_bias_grad", [Pure]> {
  let summary = "the relative position bias table's gradient";
  let description = [{
    `result[u, h] = sum over b, i, j with bucket(j - i) == u of grad[b, h, i, j]`:
    the gradient of `mt.relative_position_bias`'s table (of the result's
    type, `[num_buckets, heads]`), with the same buckets. The sums run in a
    fixed order (over the diagonals of each head, then each bucket's
    distances), so the result does not depend on the target.

    ```mlir
    %drel = mt.relative_position_bias_grad %ds {bidirectional, max_distance = 128 : i64} : tensor<8x8x512x512xf32> -> tensor<32x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, UnitAttr:$bidirectional,
                       DefaultValuedAttr<I64Attr, "128">:$max_distance);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def MT_AttentionKVGradOp : MT_Op<"attention_kv_grad", [Pure]> {
  let summary = "key or value gradient, summed over each key head's query group";
  let description = [{
    `result[b, kh, j, d] = sum over h in group(kh), i of lhs[b, h, i, j] * rhs[b, h, i, d]`:
    with `lhs` = score gradients and `rhs` = queries it is the key gradient of
    `mt.attention_scores`; with `lhs` = probabilities and `rhs` = context
    gradients, the value gradient of `mt.attention_context`. The result's
    head count (key/value heads) divides the operands'.

    ```mlir
    %dk = mt.attention_kv_grad %ds, %q : tensor<8x12x1024x1024xf32>, tensor<8x12x1024x64xf32> -> tensor<8x4x1024x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_CrossEntropyGradOp : MT_Op<"cross_entropy_grad", [Pure]> {
  let summary = "gradient of mt.cross_entropy with respect to the logits";
  let description = [{
    `result = grad * mask * (softmax(logits) - onehot(labels)) / sum(mask)`,
    with classes at or past `num_classes` getting zero.

    ```mlir
    %dl = mt.cross_entropy_grad %dloss, %logits, %labels mask %m : tensor<f32>, tensor<8x1024x50257xf32>, tensor<8x1024xi32>, tensor<8x1024xf32> -> tensor<8x1024x50257xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$logits,
                       AnyRankedTensor:$labels, Optional<AnyRankedTensor>:$loss_mask,
                       OptionalAttr<I64Attr>:$num_classes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad `,` $logits `,` $labels (`mask` $loss_mask^)? attr-dict `:` type($grad) `,`
    type($logits) `,` type($labels) (`,` type($loss_mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_ShardSliceGradOp : MT_Op<"shard_slice_grad", [MT_Differentiable, Pure]> {
  let summary = "gradient of mt.shard_slice: the piece in place, zeros elsewhere";
  let description = [{
    The inverse layout of `mt.shard_slice`: a tensor `parts` times larger along
    `dim`, holding `grad` as piece number `index` and zeros in the others.
    Also how tensor parallelism makes a whole value of sequence pieces for a
    small head (then summed over the ranks); its own gradient is the piece.

    ```mlir
    %d = mt.shard_slice_grad %dp[%i : tensor<i64>] dim = 0 parts = 2 : tensor<512x768xf32> -> tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$index, I64Attr:$dim,
                       I64Attr:$parts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad `[` $index `:` type($index) `]` `dim` `=` $dim `parts` `=` $parts attr-dict `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_VocabParallelStatsGradOp : MT_Op<"vocab_parallel_stats_grad", [Pure]> {
  let summary = "gradient of mt.vocab_parallel_stats with respect to the logits";
  let description = [{
    `result = grad_sum_exp * exp(logits - max)` over this piece's classes
    below `num_classes` (zero past it), plus `grad_label_logit` at the label's
    class when this piece holds it. `max` is treated as a constant.

    ```mlir
    %dl = mt.vocab_parallel_stats_grad %dse, %dt, %logits[%i : tensor<i64>], %labels, %max {num_classes = 50257 : i64}
        : tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8x1024x25216xf32>, tensor<8x1024xi32>, tensor<8x1024xf32> -> tensor<8x1024x25216xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad_sum_exp, AnyRankedTensor:$grad_label_logit,
                       AnyRankedTensor:$logits, AnyRankedTensor:$shard, AnyRankedTensor:$labels,
                       AnyRankedTensor:$max, I64Attr:$num_classes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $grad_sum_exp `,` $grad_label_logit `,` $logits `[` $shard `:` type($shard) `]` `,` $labels `,` $max
    attr-dict `:` type($grad_sum_exp) `,` type($grad_label_logit) `,` type($logits) `,` type($labels)
    `,` type($max) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_CrossEntropyFromStatsGradOp : MT_Op<"cross_entropy_from_stats_grad", [Pure]> {
  let summary = "gradients of mt.cross_entropy_from_stats";
  let description = [{
    With `w = grad * mask / sum(mask)` (0 for an all-masked batch):
    `grad_sum_exp = w / sum_exp` and `grad_label_logit = -w`. `max` carries
    no gradient (the loss does not depend on it).

    ```mlir
    %dse, %dt = mt.cross_entropy_from_stats_grad %dloss, %se mask %m : tensor<8x1024xf32> : tensor<f32>, tensor<8x1024xf32> -> tensor<8x1024xf32>, tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$sum_exp,
                       Optional<AnyRankedTensor>:$loss_mask);
  let results = (outs AnyRankedTensor:$grad_sum_exp, AnyRankedTensor:$grad_label_logit);
  let assemblyFormat = [{
    $grad `,` $sum_exp (`mask` $loss_mask^ `:` type($loss_mask))? attr-dict `:` type($grad) `,`
    type($sum_exp) `->` type($grad_sum_exp) `,` type($grad_label_logit)
  }];
  let hasVerifier = 1;
}

def MT_GradientReadyOp : MT_Op<"gradient_ready"> {
  let summary = "a gradient accumulator's slice is final for this step";
  let description = [{
    Marks the point of a training step after which the gradient accumulator
    `accumulator` (the index of the function argument that holds it) is not
    written again: all of it, or with `layer` only that layer of a stacked
    one. `value` is the accumulator's last value (what was written). The
    runtime may start reducing that slice over the data-parallel ranks there,
    while the rest of the backward runs. `index` numbers the function's
    signals in order; the op lowers to a call into the runtime with it and
    changes no value (mt-signal-gradients-ready).

    ```mlir
    %acc1 = mt.insert_layer %dw into %acc {layer = 1 : i64} : tensor<64x16xf32> into tensor<2x64x16xf32>
    mt.gradient_ready %acc1 {accumulator = 30 : i64, index = 0 : i64, layer = 1 : i64} : tensor<2x64x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, I64Attr:$index, I64Attr:$accumulator,
                       OptionalAttr<I64Attr>:$layer);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def MT_AccumulateOp : MT_Op<"accumulate", [Pure, DeclareOpInterfaceMethods<MT_InPlaceOpInterface>, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["value", "into", "result"]>]> {
  let summary = "adds a gradient into its accumulator";
  let description = [{
    `result = into + value`, written over `into`'s buffer when nothing reads
    `into` afterwards (destination-passing: the accumulator is the
    destination). mt-fuse-gradient-accumulation emits it for a gradient
    contribution that no producer can accumulate by itself (a bias's or a
    norm's gradient); weight-gradient GEMMs and the embedding's scatter-add
    accumulate directly (`plus`).

    ```mlir
    %acc2 = mt.accumulate %db into %acc : tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, AnyRankedTensor:$into);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$value `into` $into attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // MT_GRAD_OPS_TD
