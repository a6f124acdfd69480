//===- Passes.td - passes over the mt dialect ------------------------------===//
#ifndef MT_TRANSFORMS_PASSES_TD
#define MT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyModelPass : Pass<"mt-verify-model", "mlir::ModuleOp"> {
  let summary = "checks the model-level rules that no single op can see";
  let description = [{
    A model function is a `func.func` with at least one argument marked
    `mt.param`. The pass enforces the model constraints M1-M4 of
    docs/spec.md: parameter names are unique (M1); parameters are statically
    shaped floating-point tensors (M2); the function returns exactly one
    `tensor<f32>`, the loss (M3); dropout streams are unique within each
    body, so no two dropout sites share a mask (M4).
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def PadVocabPass : Pass<"mt-pad-vocab", "mlir::ModuleOp"> {
  let summary = "pads the vocabulary to a multiple, as Megatron does";
  let description = [{
    Rounds the leading (vocabulary) dimension of every parameter used as an
    `mt.embedding` table up to a multiple of `multiple`
    (Megatron's --make-vocab-size-divisible-by), so the table splits evenly
    over tensor-parallel ranks and GEMMs get friendly shapes. Results do not
    change: tied language-model heads produce the padded logits, and the
    `mt.cross_entropy` that consumes them gets `num_classes` set to the real
    vocabulary, so padded classes never count.
  }];
  let options = [
    Option<"multiple", "multiple", "int64_t", /*default=*/"1",
           "round the vocabulary up to a multiple of this (1: no padding)">,
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

def SpecializeShapesPass : Pass<"mt-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "fixes the batch and sequence sizes of a model written with `?`";
  let description = [{
    The batch arguments of a model function (those not marked `mt.param`) are
    laid out `[batch, seq, ...]`. The pass sets their dynamic batch dimension
    to `micro-batch-size` and dynamic sequence dimension to `seq-length`
    (`decoder-seq-length` for an encoder-decoder model's arguments marked
    `mt.sequence = "decoder"`), then
    recomputes every result type from its operands
    (ShapeInferenceOpInterface), through `mt.layer_stack` bodies, up to the
    function's results. A size that contradicts a static one already in the
    IR is an error, and so is any dynamic size left at the end: everything
    after this pass (autodiff, partitioning, memory planning, lowering)
    works on static shapes.
  }];
  let options = [
    Option<"microBatchSize", "micro-batch-size", "int64_t", /*default=*/"1",
           "sequences per micro-batch">,
    Option<"seqLength", "seq-length", "int64_t", /*default=*/"0",
           "tokens per sequence (0: the model's position table size)">,
    Option<"decoderSeqLength", "decoder-seq-length", "int64_t", /*default=*/"0",
           "tokens per decoder sequence, for arguments marked mt.sequence = \"decoder\"">,
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

def SplitPipelinePass : Pass<"mt-split-pipeline", "mlir::ModuleOp"> {
  let summary = "cuts a model into pipeline stages along its layer stacks";
  let description = [{
    Replaces each model `@f` (one `mt.layer_stack`, or several in a row such
    as T5's encoder and decoder; statically shaped) by
    `stages x virtual-stages` functions `@f_stage<k>`, one per virtual stage
    k. Each stack gets a run of stages (with two stacks, `split-rank` stages
    for the first, as Megatron's --pipeline-model-parallel-split-rank; by
    default in proportion to their layers), and its layers are split into
    contiguous ranges over them; when they do not divide evenly the middle
    stages take one more layer each (the first and last stages also hold the
    embedding and the head: 10 layers on 4 stages are 2, 3, 3, 2). The first
    stage also holds what comes before the first stack (embeddings), the
    first stage of a later stack what comes between (the encoder's final
    norm, the decoder's embedding), the last what comes after (final norm,
    head, loss). Every value a later stage uses crosses the boundaries
    between: the stack's carried activation, and e.g. the encoder's output
    that every decoder stage attends to. One value crosses as it is; several
    are packed into one flat tensor (mt.reshape, mt.concat; mt.split on the
    other side).

    A stage takes its layers' slice of every stacked parameter (argument
    attribute `mt.first_layer` = the model-wide index of its first layer)
    and the whole of every other parameter it uses, so a tied embedding is a
    parameter of both the first and the last stage. A stage after the first
    receives the previous stage's activation as its `mt.stage_input`
    argument; a stage before the last returns its activation. Stages keep
    drawing the dropout masks of the unsplit model: their stacks carry
    `first_layer`. Functions get `mt.stage`, `mt.num_stages` and
    `mt.pipeline_of`.

    Virtual stage k runs on pipeline rank k mod stages, as model chunk
    k / stages (interleaved 1F1B). Refused, with what to change, when a
    stack has fewer layers than its stages.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", "1", "pipeline-parallel size">,
    Option<"virtualStages", "virtual-stages", "int64_t", "1",
           "model chunks per pipeline stage (interleaved schedule)">,
    Option<"splitRank", "split-rank", "int64_t", "0",
           "with two stacks (encoder, decoder): the stages of the first (0: in proportion "
           "to the layers)">
  ];
  let dependentDialects = ["::mt::MTDialect", "::mlir::func::FuncDialect"];
}

def CastActivationsPass : Pass<"mt-cast-activations", "mlir::ModuleOp"> {
  let summary = "runs a model's compute in 16 bits, its parameters and loss in fp32";
  let description = [{
    Mixed precision as Megatron's `--bf16`: the model is written in f32 and
    its parameters stay fp32 (the main parameters the optimizer updates,
    the main gradients it reads), while the ops that carry the activations
    (linears and matmuls, norms, softmax, GeLU, dropout, adds, head
    splits, attention) run on `element-type` tensors. Each f32 operand
    of such an op gets an `mt.convert` to 16 bits, one per use, so each
    use's gradient is converted back and summed in fp32 (a tied embedding's
    two uses); every other op (the loss, collectives, sends, shard slices,
    layer slices) keeps f32, with its 16-bit operands converted back.
    Every kernel computes in fp32 inside and rounds what it stores
    (mt-lower-to-linalg), so a 16-bit tensor is storage, not arithmetic.
    Runs after mt-unroll-layers and the forward fusions, before the
    gradients are derived; the model must be written in f32. With
    `scale-loss` (fp16, whose gradients would underflow), each function
    that returns the loss gets a `loss_scale` input: the backward starts
    from it instead of 1, and the trainer divides the gradients by it
    (dynamic loss scaling, mt-run).

    ```mlir
    // before
    %h = mt.linear %x, %w : tensor<2x8x16xf32>, tensor<64x16xf32> -> tensor<2x8x64xf32>
    // after
    %w16 = mt.convert %w : tensor<64x16xf32> -> tensor<64x16xbf16>
    %h = mt.linear %x16, %w16 : tensor<2x8x16xbf16>, tensor<64x16xbf16> -> tensor<2x8x64xbf16>
    ```
  }];
  let options = [
    Option<"elementType", "element-type", "std::string", "\"bf16\"",
           "the 16-bit type of the activations: bf16 or f16">,
    Option<"scaleLoss", "scale-loss", "bool", "false",
           "give each function that returns the loss a `loss_scale` input "
           "(`tensor<f32> {mt.batch = \"loss_scale\"}`) that mt-derive-gradients "
           "starts the backward from (fp16's loss scaling)">
  ];
}

def FuseBiasGeluPass : Pass<"mt-fuse-bias-gelu", "mlir::func::FuncOp"> {
  let summary = "fuses a linear's bias and the GeLU after it into mt.bias_gelu";
  let description = [{
    A biased `mt.linear` whose only reader is an `mt.gelu` becomes a linear
    without bias and an `mt.bias_gelu`. The bias is then added in the GeLU's
    kernel, and the backward's `mt.bias_gelu_grad` recomputes the sum on the
    fly: the biased sum never goes to memory in either direction
    (Megatron's bias-GeLU fusion). Results are unchanged: the same
    additions and the same GeLU in the same order. Attributes of the ops
    (`mt.layer`, ...) carry over.

    ```mlir
    // before
    %h = mt.linear %x, %w, %b : tensor<2x8x16xf32>, tensor<64x16xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
    %y = mt.gelu %h approximate = tanh : tensor<2x8x64xf32>
    // after
    %h = mt.linear %x, %w : tensor<2x8x16xf32>, tensor<64x16xf32> -> tensor<2x8x64xf32>
    %y = mt.bias_gelu %h, %b approximate = tanh : tensor<2x8x64xf32>, tensor<64xf32>
    ```
  }];
}

def FuseAttentionPass : Pass<"mt-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "fuses scores, softmax, dropout and context into mt.fused_attention";
  let description = [{
    `mt.attention_scores` -> `mt.softmax` (scale, causal and key masks) ->
    optional `mt.dropout` -> `mt.attention_context`, each intermediate read
    only by the next op, becomes one `mt.fused_attention` with the softmax's
    masks and the dropout's key; when the context's one reader is
    `mt.merge_heads`, the fused op writes the merged layout and replaces it
    too. The backward (`mt.fused_attention_grad`) recomputes the
    probabilities per tile from the saved log-sum-exp, so nothing
    score-sized is kept for it or held at any time: the `5as/h` term of the
    activation memory goes. Results agree with the unfused ops to rounding
    (the online softmax sums in another order); the dropout drops the same
    elements.

    Left alone: a softmax with `position` (a KV cache), ALiBi or relative
    position biases between scores and softmax, intermediates with other
    readers (attention weights returned), stored dropout masks
    (`mt.masked_scale`), dynamic shapes, and attention over fewer than
    `min-keys` keys.

    ```mlir
    // before
    %s = mt.attention_scores %q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
    %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.35 : f64} : tensor<2x4x16x16xf32>
    %d = mt.dropout %p seed %seed : tensor<i64> {rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4x16x16xf32>
    %c = mt.attention_context %d, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
    %m = mt.merge_heads %c : tensor<2x4x16x8xf32> -> tensor<2x16x32xf32>
    // after
    %m, %lse = mt.fused_attention %q, %k, %v seed %seed : tensor<i64> {block_keys = 64 : i64, mask = #mt<mask causal>, rate = 1.0e-01 : f64, scale = 0.35 : f64, stream = 1 : i64} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x16x32xf32>, tensor<2x4x16xf32>
    ```
  }];
  let options = [
    Option<"minKeys", "min-keys", "int64_t", "0",
           "fuse only attention over at least this many keys">,
    Option<"blockKeys", "block-keys", "int64_t", "64",
           "keys per tile of the fused kernels">,
    Option<"wideOnly", "wide-only", "bool", "false",
           "fuse only f32/f64 attention (mtc's auto: the CPU's tiled kernels; its 16-bit "
           "fused kernels are row kernels, slower than the unfused ops)">,
  ];
}

def FuseBiasDropoutAddPass : Pass<"mt-fuse-bias-dropout-add", "mlir::func::FuncOp"> {
  let summary = "fuses a bias add, the dropout after it and a residual add into mt.bias_dropout_add";
  let description = [{
    `residual + dropout(x + bias)`, where the bias is a biased
    `mt.linear`'s or a rank-1 `mt.add` operand, each intermediate read only
    by the next op, becomes one `mt.bias_dropout_add` with the dropout's key
    (seed, stream, layer, shard): one kernel instead of three, and neither
    intermediate goes to memory (Megatron's bias-dropout-add fusion). The
    backward is the residual's gradient plus the same dropout applied to
    it. Results are unchanged. Run it before mt-store-dropout-masks
    replaces dropouts: it fuses only `mt.dropout`.

    ```mlir
    // before
    %h = mt.linear %a, %w, %b : tensor<2x8x64xf32>, tensor<16x64xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
    %d = mt.dropout %h {rate = 1.0e-01 : f64, stream = 2 : i64} : tensor<2x8x16xf32>
    %y = mt.add %x, %d : tensor<2x8x16xf32>, tensor<2x8x16xf32>
    // after
    %h = mt.linear %a, %w : tensor<2x8x64xf32>, tensor<16x64xf32> -> tensor<2x8x16xf32>
    %y = mt.bias_dropout_add %h, %b, %x {rate = 1.0e-01 : f64, stream = 2 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
    ```
  }];
}

def FuseAddLayerNormPass : Pass<"mt-fuse-add-layer-norm", "mlir::func::FuncOp"> {
  let summary = "fuses a residual add and the layer norm of its sum into mt.add_layer_norm";
  let description = [{
    An `mt.add` of two tensors of one type (a residual add, not a
    broadcast) whose sum an `mt.layer_norm` of the same layer (`mt.layer`)
    reads becomes one
    `mt.add_layer_norm` returning both the sum, which its other readers
    keep reading, and the normalized tensor. Each row of the sum is written
    once and normalized while in cache; the backward is one
    `mt.layer_norm_grad` that adds the sum's own gradient as it writes the
    input gradient. Results are unchanged: the same additions in the same
    order. Run it after mt-fuse-bias-dropout-add, which owns residual adds
    that follow a dropout. The fused op takes the layer norm's attributes
    (`mt.layer`, ...).

    ```mlir
    // before
    %s = mt.add %x, %r : tensor<2x8x16xf32>, tensor<2x8x16xf32>
    %y = mt.layer_norm %s, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
    // after
    %s, %y = mt.add_layer_norm %x, %r, %g, %b {epsilon = 1.0e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>
    ```
  }];
}

def FuseGradientAccumulationPass : Pass<"mt-fuse-gradient-accumulation", "mlir::ModuleOp"> {
  let summary = "makes the training step add its gradients into the accumulators in place";
  let description = [{
    For every function returning parameter gradients (`mt.grad_of`), each
    such result `g` gets an accumulator argument of its type
    (`mt.accumulator_of = "<parameter>"`) and the result becomes
    `accumulator + g`, updated in the accumulator's buffer
    (`mt.in_place_of = <argument number>` on the result; mt-drop-in-place-results
    removes it after bufferization, so the runtime passes the buffer once).
    The sum is built contribution by contribution, in program order: a
    stacked weight's gradient (`mt.stack_layers`) per layer through
    `mt.slice_layer` / `mt.insert_layer`, an `mt.add` of gradients (a tied
    weight) per operand. Then each contribution accumulates where it is made:
    - a weight-gradient GEMM (`mt.matmul`) with `plus`: the product goes
      straight into the fp32 accumulator, no gradient tensor in between;
    - the embedding's scatter-add (`mt.embedding_grad`) with `plus`;
    - anything else through `mt.accumulate` (biases, norms: small);
    - `mt.zeros` adds nothing and is dropped.
    Per-layer weight gradients no longer live until the end of the backward,
    and the separate accumulation pass over every gradient is gone
    (mt-build-optimizer then makes no `accumulate` function). Results are
    unchanged up to the order of floating-point additions into the
    accumulator.

    ```mlir
    // before
    func.func @f_grad(...) -> (tensor<2x64x64xf32> {mt.grad_of = "w"}) {
      %d0 = mt.matmul %x0, %dy0 {transpose_lhs} : ...
      %d1 = mt.matmul %x1, %dy1 {transpose_lhs} : ...
      %dw = mt.stack_layers %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<2x64x64xf32>
      return %dw
    }
    // after
    func.func @f_grad(..., %acc: tensor<2x64x64xf32> {mt.accumulator_of = "w"})
        -> (tensor<2x64x64xf32> {mt.grad_of = "w", mt.in_place_of = 5 : i64}) {
      %a0 = mt.slice_layer %acc {layer = 0 : i64} : ...
      %d0 = mt.matmul %x0, %dy0 plus %a0 : tensor<64x64xf32> {transpose_lhs} : ...
      %acc1 = mt.insert_layer %d0 into %acc {layer = 0 : i64} : ...
      ...
    }
    ```
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def UnrollLayersPass : Pass<"mt-unroll-layers", "mlir::ModuleOp"> {
  let summary = "expands every mt.layer_stack into one copy of its body per layer";
  let description = [{
    Layer `i` reads its weights through `mt.slice_layer` ops (slice `i` of
    each stacked operand) and its dropout ops get `layer = i`, so they keep
    drawing the masks they drew inside the stack. The result is straight-line
    code for passes that treat layers individually (autodiff, recomputation,
    pipeline stages).
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def ShareStageProgramsPass : Pass<"mt-share-stage-programs", "mlir::ModuleOp"> {
  let summary = "keeps one copy of the plan functions that differ only in their layers";
  let description = [{
    Pipeline stages of the same layers (every middle stage of an interleaved
    schedule, most stages of a deep model) compile to the same code except
    for the layer index in their dropout keys. This pass groups the plan's
    functions (those with `mt.role`) whose bodies, types and argument
    attributes are equal once each dropout layer is taken relative to the
    function's first, keeps the first of each group and erases the rest, so
    native code generation costs grow with the number of distinct stage
    programs rather than with the number of stages. The kept function gets
    a `tensor<i64>` argument marked `mt.layer_offset` (when it has dropout
    layers) that the runtime fills with each caller's first layer, and lists
    every function it now runs for in `mt.shared_code`:

    ```mlir
    func.func @train_step_s1(..., %layer_offset: tensor<i64> {mt.layer_offset})
        attributes {mt.shared_code = {train_step_s1 = 1 : i64, train_step_s17 = 17 : i64}}
    ```

    The masks drawn are the ones each stage drew before: the key's layer is
    the op's (relative) layer plus the offset; ops' `mt.layer` become
    relative too (mt-outline-layers groups by them). Attributes that only
    reports read (`mt.stage`, `mt.first_layer`, `mt.saved_from`) are not
    compared.
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def OutlineLayersPass : Pass<"mt-outline-layers", "mlir::ModuleOp"> {
  let summary = "compiles the identical layers of a plan function once, as one called function";
  let description = [{
    A pipeline chunk of several layers unrolls each layer's forward and
    backward into its function, so native code generation costs grow with
    the layers per chunk. This pass groups the ops of every training
    function (`mt.role` forward, train_step or eval) by their `mt.layer`,
    together with the ops that only feed one layer (the slices of its
    stacked parameters and accumulators), and replaces every group whose
    code equals another group's by a call of one private function:

    ```mlir
    %out:3 = func.call @stage_grad_layer(%x, %ln1_w, ..., %c1, %offset)
        : (tensor<1x32x16xf32>, tensor<2x16xf32>, ..., index, tensor<i64>) -> (...)
    ```

    The callee takes the stacked tensors whole with the layer's slot in
    them as an `index` (its slices and inserts become `tensor.extract_slice`
    and `tensor.insert_slice` at that slot; an updated accumulator's result
    is marked `mt.in_place_of` its argument) and, when it draws dropout
    masks, the layer's key offset as a `tensor<i64>` argument marked
    `mt.layer_offset` (the caller's own offset plus the layer, or the layer).
    The masks, values and order of collectives are unchanged. A function
    whose groups cannot be called in an order its values allow (a group that
    needs another group's later result) is left as it is, and so is a module
    marked `mt.layers_inline` (mtc `--outline-layers=false`: each call
    reserves its callee's whole arena while its inputs and outputs stay
    live, so the arena can be larger than with the layers inline).
  }];
  let dependentDialects = ["::mt::MTDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

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

def PartitionTensorParallelPass : Pass<"mt-partition-tensor-parallel", "mlir::ModuleOp"> {
  let summary = "rewrites a model into one tensor-parallel rank's program";
  let description = [{
    Derives Megatron's tensor-parallel layout from the graph and rewrites
    each model function into what one of `tp` ranks runs, on local shapes,
    with the collectives explicit:

    * A linear whose output reaches only another linear's contraction or the
      loss, through head-wise and elementwise ops, is column-parallel (its
      weight and bias split by output rows; when the output is split into
      pieces, [q; k; v], each piece is split separately). The linear that
      contracts the split value is row-parallel: its partial sums are
      reduced, then its bias is added.
    * Attention heads follow the split (the head count must divide by tp).
    * Embedding tables are split by vocabulary rows (`mt.embedding ... shard`),
      and a loss over vocabulary-split logits becomes the vocab-parallel
      cross-entropy (`mt.vocab_parallel_max`, `mt.vocab_parallel_stats`,
      `mt.cross_entropy_from_stats` with three all-reduces).
    * Partial sums are reduced where a non-linear op needs them, with
      `mt.all_reduce`; with `sequence-parallel`, with `mt.reduce_scatter`
      along the sequence instead, and the norms, dropout and residuals that
      follow run on sequence pieces until the next column-parallel linear
      all-gathers them (`mt.all_gather`).
    * A replicated value that starts feeding per-rank work goes through
      `mt.vary`, whose gradient is the all-reduce that sums the ranks'
      contributions (Megatron's f; the all-reduce of partial sums is its g).
    * Dropout on a split tensor draws the mask of its global positions.

    These are the ops' own rules (`TensorParallelOpInterface`, beside each
    op's verifier and VJP rule); the pass walks each model in program
    order and applies them, keeps a pointwise op's operand layout, and
    runs any other op replicated. The pass declares
    `mt.mesh @mesh axes = ["tp"]` and marks sharded parameters with
    `mt.sharding` (and `mt.segments` when a dimension has
    several segments). A model that cannot be sharded is refused with what
    to change. With tp = 1 the pass changes nothing.
  }];
  let options = [
    Option<"tp", "tp", "int64_t", "1", "tensor-parallel ranks">,
    Option<"sequenceParallel", "sequence-parallel", "bool", "false",
           "split norm, dropout and residual regions along the sequence">,
  ];
  let dependentDialects = ["mt::MTDialect"];
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
    Option<"granularity", "granularity", "std::string", "\"none\"",
           "none | selective (each layer's attention core) | full (whole layers) | auto (under activation-budgets)">,
    Option<"method", "method", "std::string", "\"uniform\"",
           "full: uniform (groups of num-layers layers) | block (the first num-layers layers)">,
    Option<"numLayers", "num-layers", "int64_t", "1", "full: layers per group, or layers recomputed">,
    ListOption<"activationBudgets", "activation-budgets", "int64_t",
               "auto: the most bytes of live activations each training step may reach, one "
               "for every function or one per virtual stage">,
  ];
}

def SplitStageStepPass : Pass<"mt-split-stage-step", "mlir::ModuleOp"> {
  let summary = "splits a pipeline stage's step into a forward that keeps activations and a backward";
  let description = [{
    A pipeline stage before the last runs its forward, sends its output on,
    and runs its backward when the output's cotangent comes back, several
    micro-batches later. mt-derive-gradients builds the stage's gradient
    function as its forward ops then its backward ops (`mt.backward`) and
    returns the stage output again (`mt.stage_output`). This pass cuts it:
    the stage's forward function becomes those forward ops, returning the
    stage output and then every forward value the backward reads, marked
    `mt.saved = i`; the gradient function keeps only the backward ops and
    takes the saved values as arguments `mt.saved = i` (with
    `mt.saved_from`, the op that made them). The stage input is saved too
    when the backward reads it. Values computed from parameters and
    constants alone, and rate-0 dropouts, are computed again in the backward
    instead. No forward op runs twice (unless mt-recompute-activations chose
    to recompute it); the runtime keeps one set of saved buffers for each
    micro-batch in flight. The last stage, which has no cotangent, is left
    as it is.

    ```mlir
    // before
    func.func @f_stage0(%x: tensor<2x4xf32> {mt.stage_input}, %w: ...) -> tensor<2x4xf32>
    func.func @f_stage0_grad(%x: ..., %w: ..., %dy: tensor<2x4xf32> {mt.cotangent})
        -> (tensor<4xf32> {mt.grad_of = "w"}, ..., tensor<2x4xf32> {mt.stage_output}) {
      %h = mt.gelu %x : tensor<2x4xf32>
      %y = mt.mul %h, %w : tensor<2x4xf32>, tensor<4xf32>
      %p = mt.mul %dy, %h {mt.backward} : ...
      ...
    // after
    func.func @f_stage0(%x: ..., %w: ...) -> (tensor<2x4xf32>, tensor<2x4xf32> {mt.saved = 0 : i64}) {
      %h = mt.gelu %x : tensor<2x4xf32>
      %y = mt.mul %h, %w : tensor<2x4xf32>, tensor<4xf32>
      return %y, %h : tensor<2x4xf32>, tensor<2x4xf32>
    }
    func.func @f_stage0_grad(%x: ..., %w: ..., %dy: ...,
        %h: tensor<2x4xf32> {mt.saved = 0 : i64, mt.saved_from = "mt.gelu"}) -> ... {
      %p = mt.mul %dy, %h {mt.backward} : ...
    ```
  }];
}

def SignalGradientsReadyPass : Pass<"mt-signal-gradients-ready", "mlir::ModuleOp"> {
  let summary = "marks where each gradient accumulator (or layer of one) is final in a step";
  let description = [{
    In every training step function (`mt.role = #mt<role train_step>`), follows
    each accumulator result (`mt.in_place_of`) back from the return: a chain
    of `mt.insert_layer` ops writes a stacked accumulator layer by layer, the
    backward visiting the last layer first, so each layer's slice is final
    right after its insert; any other op writes the whole accumulator, which
    is final after the last such op (slices written before it are then not
    signalled). After each of those points it puts an `mt.gradient_ready`
    naming the accumulator argument and layer, numbered in program order.
    The runtime starts the slice's data-parallel all-reduce there, on
    another thread, while the backward goes on (mt-run's overlapped gradient
    reduction); a runtime that does not overlap ignores the signals.

    ```mlir
    %1 = mt.insert_layer %dw1 into %acc {layer = 1 : i64} : tensor<64x16xf32> into tensor<2x64x16xf32>
    mt.gradient_ready %1 {accumulator = 30 : i64, index = 3 : i64, layer = 1 : i64} : tensor<2x64x16xf32>
    ```
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def OverlapCollectivesPass : Pass<"mt-overlap-collectives", "mlir::ModuleOp"> {
  let summary = "starts tensor-parallel collectives early and waits for them late";
  let description = [{
    Tensor parallelism's backward has work that no collective next to it
    needs (Megatron's overlap): a column-parallel linear's input gradient
    GEMM runs while its input is gathered again for the weight gradient
    (sequence parallelism), and the weight gradient's GEMM while the input
    gradient is reduce-scattered (or all-reduced). For every
    `mt.all_reduce`, `mt.all_gather` and `mt.reduce_scatter` the pass moves the collective above the nearest `mt.matmul` before it
    that it does not depend on (in its layer group, crossing no collective,
    gradient signal, call or region), and puts an `mt.collective_wait`
    before the first use of its result, or before the first op of another
    layer group or the next ordered op, when some compute lies between.
    The runtime starts the collective where it stands (its input is
    consumed there) and moves the data on a thread of its own until the
    wait. Every rank runs the same program, so the collectives start in the
    same order everywhere.

    ```mlir
    // before
    %dx = mt.matmul %dy, %w : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
    %x = mt.all_gather %xs on @mesh axes = ["tp"] dim = 1 : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    // after
    %x = mt.all_gather %xs on @mesh axes = ["tp"] dim = 1 : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    %dx = mt.matmul %dy, %w : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
    %x1 = mt.collective_wait %x : tensor<2x8x16xf32>
    ```
  }];
  let dependentDialects = ["::mt::MTDialect"];
}

def DeferGradientReductionsPass : Pass<"mt-defer-gradient-reductions", "mlir::ModuleOp"> {
  let summary = "sums sequence-parallel parameter gradients once per step, not per micro-batch";
  let description = [{
    Under sequence parallelism each rank computes its addend of a replicated
    parameter's gradient (a norm's scale and shift, a row-parallel bias)
    from its sequence piece, and the VJP of `mt.vary` sums the addends with
    an `mt.all_reduce` in every micro-batch. Accumulation over micro-batches
    is a sum as well, so the two commute. When a gradient result
    (`mt.grad_of`) is built only from sum all-reduces over the same axes by
    single-use, rank-local linear ops (`mt.add`, `mt.stack_layers`,
    `mt.position_embedding_grad`), the pass removes those all-reduces and
    marks the result `mt.partial_over = [axes]`; the runtime all-reduces the
    accumulated gradient over those axes once per step, before clipping and
    the data-parallel reduction.

    ```mlir
    // before                                   // after
    %r = mt.all_reduce %g on @mesh axes = ["tp"] reduction = sum : tensor<16xf32>
    return %r                                   return %g   // {mt.partial_over = ["tp"]}
    ```
  }];
}

def CheckCollectivesPass : Pass<"mt-check-collectives", "mlir::ModuleOp"> {
  let summary = "refuses a plan whose ranks would disagree about a collective";
  let description = [{
    Ranks that differ only along tp or dp run the same functions, so their
    collectives match by construction (the ops' verifiers check sizes
    against the group). Ranks on different pipeline stages run different
    functions: every collective whose group spans `pp` must appear at the
    same position, with the same kind, type, dimension and reduction, in the
    matching function of every stage. The activation a stage sends must be
    the type the next stage receives (`mt.stage_input`), and the gradient it
    sends back the type of the previous stage's `mt.cotangent`. A failure
    names both stages, their pipeline ranks and both ops, and mtc writes no
    plan.
  }];
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
    the functions get `mt.shards = d`.
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
  }];
  let options = [
    Option<"capacity", "capacity", "int64_t", /*default=*/"0",
           "positions a KV cache holds (0: the position table's rows)">,
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

#endif // MT_TRANSFORMS_PASSES_TD
