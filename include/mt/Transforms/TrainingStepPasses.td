//===- TrainingStepPasses.td - the training step: gradients, recomputation, optimizer, evaluation, inference ---===//
#ifndef MT_TRANSFORMS_TRAINING_STEP_PASSES_TD
#define MT_TRANSFORMS_TRAINING_STEP_PASSES_TD

include "mlir/Pass/PassBase.td"

def DeriveGradientsPass : Pass<"mt-derive-gradients", "mlir::ModuleOp"> {
  let summary = "derives the training step: the loss and every parameter's gradient";
  let description = [{
    For each model function `@f` (unrolled and statically shaped), adds
    `@f_grad` with the same arguments that returns the loss followed by the
    gradient of the loss with respect to every `mt.param` argument, in
    argument order; each gradient result is marked `mt.grad_of = "<name>"`.
    The body is the forward computation followed by its reverse-mode
    derivative built from each op's vector-Jacobian rule (docs/autodiff.md).
  }];
  let dependentDialects = ["::mt::MTDialect", "::mlir::arith::ArithDialect"];
}

def StoreDropoutMasksPass : Pass<"mt-store-dropout-masks", "mlir::ModuleOp"> {
  let summary = "keeps each dropout's mask for the backward pass, as Megatron does";
  let description = [{
    `mt.dropout` draws its mask from a hash of its key and the element's
    position, so by default the backward pass draws it again and keeps
    nothing. This pass rewrites every dropout with a non-zero rate into
    `mt.dropout_mask` (the same key, so the same mask, one byte per element)
    and `mt.masked_scale`, whose gradient reads the stored mask. Losses do not
    change; the activations saved for the backward gain the masks. mtc runs
    it with `--dropout-masks=stored`, the setting Korthikanti et al. 2022
    count in.

    ```mlir
    // before
    %y = mt.dropout %x seed %s : tensor<i64> {rate = 1.0e-01 : f64, stream = 2 : i64} : tensor<2x16x64xf32>
    // after
    %m = mt.dropout_mask seed %s : tensor<i64> {rate = 1.0e-01 : f64, stream = 2 : i64} : tensor<2x16x64xi1>
    %y = mt.masked_scale %x, %m {scale = 1.1111111111111112 : f64} : tensor<2x16x64xf32>, tensor<2x16x64xi1>
    ```
  }];
  let dependentDialects = ["mt::MTDialect"];
}

def RecomputeActivationsPass : Pass<"mt-recompute-activations", "mlir::ModuleOp"> {
  let summary = "recomputes chosen forward values in the backward instead of keeping them";
  let description = [{
    In a gradient function (forward ops, then the ops marked `mt.backward`),
    a forward value read by the backward is kept alive from the forward to
    the backward. For each chosen forward op, the pass clones the op right
    before its first backward reader and points every backward reader at the
    clone, so the forward result dies in the forward and only the op's
    operands are kept. Results are unchanged.

    The units of ops recomputed together:

    * `all-gathers`: the sequence-parallel all-gathers in front of
      column-parallel linears; the backward gathers again and only the
      sequence piece is kept, as in Megatron.
    * `granularity=selective`: each layer's attention core (scores, softmax,
      dropout, context), Korthikanti et al. 2022; only Q, K and V are kept.
    * `granularity=full`: whole layers (`mt.layer`). With `method=uniform`
      the stage's layers go in groups of `num-layers`, recomputed together
      from the group's input; with `method=block` only the first
      `num-layers` layers of the stage are recomputed, each from its input.

    * `granularity=auto`: the pass chooses, per gradient function, which
      forward values to keep and which to recompute so that the step's
      activation peak fits `activation-budgets` at the least added work.
      Each candidate is a minimum cut of the forward graph that prices a
      kept byte against one operation of recomputation; the price sweeps
      from free memory to free work and every distinct cut is measured on a
      copy of the function. A layer keeps its input. The function records
      the choice as `mt.recompute_plan = {budget, peak, flops, fits, cuts}`;
      without a fitting cut the least peak is applied and `fits` is false.

    Clones carry `mt.recomputed`. Clones that the backward does not read are
    dropped again.

    ```mlir
    // before
    %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    ...
    %dw = mt.matmul %dy, %g {mt.backward, transpose_lhs} : ...
    // after
    %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    ...
    %g2 = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 {mt.backward} : tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    %dw = mt.matmul %dy, %g2 {mt.backward, transpose_lhs} : ...
    ```
  }];
  let options = [
    Option<"allGathers", "all-gathers", "bool", "false",
           "gather sequence pieces again in the backward instead of keeping the gathered tensor">,
    Option<"granularity", "granularity", "::mt::RecomputeGranularity",
           "::mt::RecomputeGranularity::None",
           "none | selective (each layer's attention core) | full (whole layers) | auto (under activation-budgets)",
           "::llvm::cl::values(MT_RECOMPUTE_GRANULARITY_VALUES)">,
    Option<"method", "method", "::mt::RecomputeMethod", "::mt::RecomputeMethod::Uniform",
           "full: uniform (groups of num-layers layers) | block (the first num-layers layers)",
           "::llvm::cl::values(MT_RECOMPUTE_METHOD_VALUES)">,
    Option<"numLayers", "num-layers", "int64_t", "1", "full: layers per group, or layers recomputed">,
    ListOption<"activationBudgets", "activation-budgets", "int64_t",
               "auto: the most bytes of live activations each training step may reach, one "
               "for every function or one per virtual stage">,
  ];
}

def BuildOptimizerPass : Pass<"mt-build-optimizer", "mlir::ModuleOp"> {
  let summary = "adds the optimizer-side functions of the training step";
  let description = [{
    For each model `@f` with a derived `@f_grad`, adds
    - `@f_accumulate(acc..., grads...) -> acc...`: gradient accumulation over
      micro-batches;
    - `@f_grad_sq_norm(grads...) -> (tensor<T>...)`: each gradient's sum of
      squares, for global-norm clipping (the runtime adds up those its rank
      owns);
    - `@f_adamw(params..., grads..., exp_avg..., exp_avg_sq..., hyper) ->
      (params..., exp_avg..., exp_avg_sq...)`: one `mt.adamw` per parameter,
      with weight decay for matrices only (Megatron's rule: none for biases
      and norms).
    Every function gets `mt.role` (`forward`, `train_step`, `accumulate`,
    `grad_sq_norm`, `optimizer`) so the plan builder knows what to call.

    With `distributed-optimizer-shards=d` (ZeRO-1 over d data-parallel
    ranks), `@f_grad_sq_norm` and `@f_adamw` take each parameter as a 1-D
    shard of ceil(n/d) elements instead (the runtime reduce-scatters the
    gradients into these shards and all-gathers the updated parameters);
    their buffers are `grad_shard` and `param_shard` (`#mt.buffer`).
  }];
  let options = [
    Option<"distributedOptimizerShards", "distributed-optimizer-shards", "int64_t", "0",
           "shard the optimizer state this many ways (0: not distributed)">
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

def BuildEvaluationPass : Pass<"mt-build-evaluation", "mlir::ModuleOp"> {
  let summary = "adds the evaluation function: the forward loss with dropout off";
  let description = [{
    For each model `@f`, adds `@f_eval` with the same arguments and result:
    a copy of `@f` in which every `mt.dropout` passes its input through, and
    every fused `mt.bias_dropout_add` adds without dropping, as a model in
    evaluation mode does (Megatron evaluates with dropout off).
    It gets `mt.role = "eval"`; validation loss and perplexity use it.
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def BuildInferencePass : Pass<"mt-build-inference", "mlir::ModuleOp"> {
  let summary = "replaces each model by its prefill and decode functions over a KV cache";
  let description = [{
    For each model `@f` (unrolled: its attention sites one per layer, still
    with `?` sizes), builds the two functions text generation calls, and
    removes `@f`:

    - `@f_prefill(tokens [?, ?], position, params..., caches...)` and
    - `@f_decode(tokens [?, 1], position, params..., caches...)`,

    each returning the logits and every cache updated in place
    (`mt.in_place_of`). Both are `@f` with dropout off and the loss taken
    away (the function returns what the loss read as logits), where the
    tokens stand at sequence positions `position + i`: the position
    embedding reads from there, and each attention site writes its keys and
    values into its cache (`mt.cache_insert`, caches `[batch, kv_heads,
    capacity, head_dim]`, argument attribute `mt.kv_cache = "k.<n>"` or
    `"v.<n>"`) and attends over the whole cache with a causal mask from
    `position` (`mt.softmax ... position`), so slots not written yet stay
    hidden. The prefill takes a chunk of the prompt (its length is fixed
    when shapes are specialized), the decode one token. `capacity` is the
    cache's length in positions (0: the position table's rows).

    Rotary embeddings (`mt.rotary ... at`) and ALiBi biases (`mt.alibi ...
    position`) count from `position` too. The model must end in
    `mt.cross_entropy` of its logits and use causal attention; padding masks
    are refused with the reason.

    An encoder-decoder model (batch argument `decoder_tokens`, T5) gets a
    third function, `@f_encode(tokens, padding_mask, params...)` (role
    `encode`), which runs the encoder once and returns the keys and values
    of every cross-attention site (`mt.kv_cache = "ck.<n>"`, `"cv.<n>"`,
    `[batch, heads, encoder_length, head_dim]`). Its prefill and decode run
    the decoder on `decoder_tokens`: they read those caches in place of the
    encoder, keep `padding_mask` for the cross-attention, and cache the
    self-attention sites as above, where T5's relative position biases count
    from `position` (`mt.relative_position_bias ... position`).
    `encoder_length` fixes the encoder's sequence length.

    Both also take `row_position` (`[batch]` i64) and `cache_mask`
    (`[batch, capacity]` i1), for a ragged batch: prompts of different
    lengths are left-padded to end together, row `r`'s tokens count from
    `row_position[r]` (`position` less the row's padding) in the position
    embedding (`mt.position_embedding ... at`, then `[batch, seq, hidden]`)
    and rotary embeddings, and every cached site's softmax hides the slots
    `cache_mask` marks false (`key_mask`). ALiBi and T5 biases are relative
    and count from `position`. A model without absolute positions loses
    `row_position`.

    On a model partitioned for tensor parallelism (mt-partition-tensor-parallel
    first, sizes still open), the functions are one rank's: its heads'
    caches, and the vocab-parallel cross-entropy's slice of the logits,
    all-gathered along the vocabulary (`mt.all_gather`) so that every rank
    returns them whole; the loss's collectives go.

    Generation needs the logits of a prompt's last token only, so the
    prefill computes those alone: it takes `last_token` (`mt.batch`, f32
    `[batch, seq, 1]`, one-hot over the chunk), and the language-model head
    reads `mt.matmul %last_token, %hidden {transpose_lhs}` (`[batch, 1,
    hidden]`) instead of every token's hidden state: logits `[batch, 1,
    vocab]`. `all-logits` keeps every token's logits (for checking them).
  }];
  let options = [
    Option<"capacity", "capacity", "int64_t", /*default=*/"0",
           "positions a KV cache holds (0: the position table's rows)">,
    Option<"encoderLength", "encoder-length", "int64_t", /*default=*/"0",
           "an encoder-decoder model's encoder sequence length (required for one)">,
    Option<"allLogits", "all-logits", "bool", /*default=*/"false",
           "the prefill returns the logits of every token of its chunk, not only those of "
           "the token `last_token` picks">,
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

#endif // MT_TRANSFORMS_TRAINING_STEP_PASSES_TD
