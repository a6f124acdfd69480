//===- ModelPasses.td - the model as written: checks, shapes, vocabulary, layers ---===//
#ifndef MT_TRANSFORMS_MODEL_PASSES_TD
#define MT_TRANSFORMS_MODEL_PASSES_TD

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
    change: the language-model head, tied (the table itself) or untied (a
    parameter of the vocabulary's rows whose heads feed only the loss and
    the accuracy, as Llama's `lm_head`), produces the padded logits, and
    the `mt.cross_entropy` and `mt.accuracy` that consume them get
    `num_classes` set to the real vocabulary, so padded classes never count.
    Each padded parameter (and a head's own bias) records its real rows as
    `mt.unpadded_rows`, which checkpoints read.
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

def HoistParameterCastsPass : Pass<"mt-hoist-parameter-casts", "mlir::ModuleOp"> {
  let summary = "casts a stacked parameter once, not each layer's slice (GPU)";
  let description = [{
    In a bf16 or fp16 step each layer reads its slice of an f32 stacked
    parameter through `mt.convert`: a cast per layer and parameter, each a
    kernel launch on a GPU (144 of GPT-2 small's). This pass casts the
    stacked parameter (a function argument) once at the function's start and
    slices the cast instead: the same elements rounded the same way, one
    launch per parameter, and one 16-bit copy of the stack held through the
    step. Run before mt-outline-layers, which then passes the cast stack to
    the layers' function.

    ```mlir
    // before
    %s = mt.slice_layer %w {layer = 3 : i64} : tensor<12x64xf32> -> tensor<64xf32>
    %c = mt.convert %s : tensor<64xf32> -> tensor<64xbf16>
    // after
    %all = mt.convert %w : tensor<12x64xf32> -> tensor<12x64xbf16>
    %c = mt.slice_layer %all {layer = 3 : i64} : tensor<12x64xbf16> -> tensor<64xbf16>
    ```
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

#endif // MT_TRANSFORMS_MODEL_PASSES_TD
