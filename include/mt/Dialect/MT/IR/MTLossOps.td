//===- MTLossOps.td - the loss, its vocab-parallel pieces, accuracy ---------===//
#ifndef MT_LOSS_OPS_TD
#define MT_LOSS_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"

def MT_CrossEntropyOp : MT_Op<"cross_entropy", [MT_Differentiable, MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "mean token cross-entropy of logits against labels";
  let description = [{
    `sum(mask * (logsumexp(logits) - logits[label])) / sum(mask)` over every
    token, in f32 whatever the logits' type. `loss_mask` (the labels' shape,
    float) weights tokens; without it every token counts once. With
    `num_classes` smaller than the last dimension (a padded vocabulary), the
    classes past it are ignored.

    ```mlir
    %loss = mt.cross_entropy %logits, %labels mask %m : tensor<8x1024x50257xf32>, tensor<8x1024xi32>, tensor<8x1024xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels,
                       Optional<AnyRankedTensor>:$loss_mask,
                       OptionalAttr<I64Attr>:$num_classes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`mask` $loss_mask^)? attr-dict `:` type($logits) `,`
    type($labels) (`,` type($loss_mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

// Formed after the gradients are derived (mt-fuse-cross-entropy): the
// loss and its gradient read the logits once between them.
def MT_FusedCrossEntropyOp : MT_Op<"fused_cross_entropy", [Pure]> {
  let summary = "the loss and its logits' gradient in one pass over each row";
  let description = [{
    What `mt.cross_entropy` and `mt.cross_entropy_grad` of the same logits,
    labels, mask and `num_classes` compute, together: the mean token loss
    and `grad * mask * (softmax(logits) - onehot(labels)) / sum(mask)`. Each
    row's maximum and sum of exponentials are found once and serve both, in
    the separate ops' order, so both results equal theirs bit for bit. The
    arithmetic is f32 (f64 for f64 logits) whatever the logits' type, and
    the gradient is rounded to its own element type, which may differ from
    the logits': 16-bit logits give an f32 loss and a 16-bit gradient with
    no cast of the `[tokens, classes]` matrix on either side.

    ```mlir
    %loss, %dlogits = mt.fused_cross_entropy %dloss, %logits, %labels mask %m : tensor<f32>, tensor<8x1024x50304xbf16>, tensor<8x1024xi32>, tensor<8x1024xf32> -> tensor<f32>, tensor<8x1024x50304xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$logits,
                       AnyRankedTensor:$labels, Optional<AnyRankedTensor>:$loss_mask,
                       OptionalAttr<I64Attr>:$num_classes);
  let results = (outs AnyRankedTensor:$loss, AnyRankedTensor:$logits_grad);
  let assemblyFormat = [{
    $grad `,` $logits `,` $labels (`mask` $loss_mask^)? attr-dict `:` type($grad) `,`
    type($logits) `,` type($labels) (`,` type($loss_mask)^)? `->` type($loss) `,`
    type($logits_grad)
  }];
  let hasVerifier = 1;
}

// Vocab-parallel cross-entropy: the logits are one rank's piece of the
// vocabulary. The pieces' statistics are combined by explicit collectives
// between these ops, so the plan checker sees every one of them.

def MT_VocabParallelMaxOp : MT_Op<"vocab_parallel_max", [MT_Differentiable, Pure]> {
  let summary = "per-token maximum over this rank's piece of the vocabulary";
  let description = [{
    `logits` `[..., V]` hold classes `[shard * V, (shard + 1) * V)` of the
    whole vocabulary; the result `[...]` is each token's maximum logit over
    those of them below `num_classes` (-inf when there are none). An
    `mt.all_reduce` with `max` over the vocabulary's axis gives the global
    maximum. The maximum only shifts the exponentials for range; the loss
    does not depend on it, so it carries no gradient.

    ```mlir
    %m = mt.vocab_parallel_max %logits[%i : tensor<i64>] {num_classes = 50257 : i64} : tensor<8x1024x25216xf32> -> tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$shard, I64Attr:$num_classes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $logits `[` $shard `:` type($shard) `]` attr-dict `:` type($logits) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_VocabParallelStatsOp : MT_Op<"vocab_parallel_stats", [MT_Differentiable, Pure]> {
  let summary = "this rank's share of the softmax denominator and of the label's logit";
  let description = [{
    For logits `[..., V]` holding classes `[shard * V, (shard + 1) * V)`:
    `sum_exp[...] = sum of exp(logits - max)` over this piece's classes below
    `num_classes`, and `label_logit[...]` the logit of the token's label when
    this piece holds it, else 0. Summed over the vocabulary's axis, they give
    the whole row's values.

    ```mlir
    %se, %t = mt.vocab_parallel_stats %logits[%i : tensor<i64>], %labels, %max {num_classes = 50257 : i64}
        : tensor<8x1024x25216xf32>, tensor<8x1024xi32>, tensor<8x1024xf32> -> tensor<8x1024xf32>, tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$shard,
                       AnyRankedTensor:$labels, AnyRankedTensor:$max, I64Attr:$num_classes);
  let results = (outs AnyRankedTensor:$sum_exp, AnyRankedTensor:$label_logit);
  let assemblyFormat = [{
    $logits `[` $shard `:` type($shard) `]` `,` $labels `,` $max attr-dict `:` type($logits) `,` type($labels) `,`
    type($max) `->` type($sum_exp) `,` type($label_logit)
  }];
  let hasVerifier = 1;
}

def MT_CrossEntropyFromStatsOp : MT_Op<"cross_entropy_from_stats", [MT_Differentiable, Pure]> {
  let summary = "mean token cross-entropy from the whole rows' statistics";
  let description = [{
    `sum(mask * (log(sum_exp) + max - label_logit)) / sum(mask)`, the same
    loss as `mt.cross_entropy`, from the reduced outputs of
    `mt.vocab_parallel_stats` and `mt.vocab_parallel_max`. All operands
    have the labels' shape; the result is `tensor<f32>`.

    ```mlir
    %loss = mt.cross_entropy_from_stats %se, %t, %max mask %m : tensor<8x1024xf32> : tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$sum_exp, AnyRankedTensor:$label_logit,
                       AnyRankedTensor:$max, Optional<AnyRankedTensor>:$loss_mask);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $sum_exp `,` $label_logit `,` $max (`mask` $loss_mask^ `:` type($loss_mask))? attr-dict `:`
    type($sum_exp) `,` type($label_logit) `,` type($max) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_AccuracyOp : MT_Op<"accuracy", [MT_SplitFlow, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "share of tokens whose label has the largest logit";
  let description = [{
    `sum(mask * [logits[label] == max(logits)]) / sum(mask)` over every token,
    in f32: a metric (BERT's masked-LM accuracy), not differentiable. A label
    tied for the maximum counts as right. Operands as `mt.cross_entropy`'s:
    `loss_mask` weighs tokens, classes from `num_classes` on are ignored.
    Under tensor parallelism with vocab-split logits it becomes the
    vocab-parallel maximum and label logit (all-reduced, shared with the
    loss) and `mt.accuracy_from_stats`.

    ```mlir
    %acc = mt.accuracy %logits, %labels mask %m : tensor<8x512x30522xf32>, tensor<8x512xi32>, tensor<8x512xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels,
                       Optional<AnyRankedTensor>:$loss_mask,
                       OptionalAttr<I64Attr>:$num_classes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`mask` $loss_mask^)? attr-dict `:` type($logits) `,`
    type($labels) (`,` type($loss_mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MT_AccuracyFromStatsOp : MT_Op<"accuracy_from_stats", [Pure]> {
  let summary = "share of tokens whose label logit reaches the row maximum";
  let description = [{
    `sum(mask * [label_logit >= max]) / sum(mask)`, the same metric as
    `mt.accuracy`, from the reduced outputs of `mt.vocab_parallel_stats` and
    `mt.vocab_parallel_max`. All operands have the labels' shape; the result
    is `tensor<f32>`.

    ```mlir
    %acc = mt.accuracy_from_stats %t, %max mask %m : tensor<8x512xf32> : tensor<8x512xf32>, tensor<8x512xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$label_logit, AnyRankedTensor:$max,
                       Optional<AnyRankedTensor>:$loss_mask);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $label_logit `,` $max (`mask` $loss_mask^ `:` type($loss_mask))? attr-dict `:`
    type($label_logit) `,` type($max) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MT_LOSS_OPS_TD
