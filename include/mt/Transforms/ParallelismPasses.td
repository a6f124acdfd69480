//===- ParallelismPasses.td - tensor, sequence, pipeline and data parallelism ---===//
#ifndef MT_TRANSFORMS_PARALLELISM_PASSES_TD
#define MT_TRANSFORMS_PARALLELISM_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    runs any other op replicated. Batch and sequence sizes may stay open
    (`?`) unless sequence parallelism splits the sequence. The pass declares
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

#endif // MT_TRANSFORMS_PARALLELISM_PASSES_TD
