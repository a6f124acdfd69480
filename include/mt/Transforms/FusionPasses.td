//===- FusionPasses.td - fusions and precision ------------------------------===//
#ifndef MT_TRANSFORMS_FUSION_PASSES_TD
#define MT_TRANSFORMS_FUSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    With `tp-comm-16bit`, an `mt.all_reduce`, `mt.all_gather` or
    `mt.reduce_scatter` whose operand is already 16-bit stays 16-bit, as
    Megatron's tensor-parallel collectives do: half the bytes, but each
    ring step rounds its partial sum to 16 bits.
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
    Option<"elementType", "element-type", "::mt::ActivationType", "::mt::ActivationType::BF16",
           "the 16-bit type of the activations: bf16 or f16",
           "::llvm::cl::values(MT_ACTIVATION_TYPE_VALUES)">,
    Option<"scaleLoss", "scale-loss", "bool", "false",
           "give each function that returns the loss a `loss_scale` input "
           "(`tensor<f32> {mt.batch = \"loss_scale\"}`) that mt-derive-gradients "
           "starts the backward from (fp16's loss scaling)">,
    Option<"tpComm16Bit", "tp-comm-16bit", "bool", "false",
           "tensor- and sequence-parallel collectives whose operand is already "
           "16-bit move and sum it in 16 bits (Megatron's way: half the bytes) "
           "instead of converting it to f32 and back">
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
    Option<"mmaShapesOnly", "mma-shapes-only", "bool", "false",
           "fuse only attention the GPU's tensor-core kernels take (16-bit, head dim 16 to "
           "128 in steps of 16, sequences in multiples of 16: mt::mmaAttentionShape)">,
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

def FuseCrossEntropyPass : Pass<"mt-fuse-cross-entropy", "mlir::func::FuncOp"> {
  let summary = "fuses the loss and its gradient into mt.fused_cross_entropy, casts folded in";
  let description = [{
    An `mt.cross_entropy` and an `mt.cross_entropy_grad` of the same
    logits, labels, mask and `num_classes` in one block (a training step's
    loss and the start of its backward) become one `mt.fused_cross_entropy`
    where the gradient was, when every reader of the loss comes after it.
    The `[tokens, classes]` logits are then read once by both instead of
    twice by each. Casts on either side fold in: logits widened by an
    `mt.convert` (16-bit logits, an fp32 loss) are read in their own type,
    and a gradient that is only converted (back to 16 bits) is written in
    the converts' type. A lone `mt.cross_entropy` (an evaluation) reads
    widened logits in their own type too. Results are bit-identical: the
    same f32 arithmetic in the same order, and a widening convert is exact.
    Run it after the gradients are derived and the pipeline stages split.

    ```mlir
    // before
    %x = mt.convert %logits : tensor<8x1024x50304xbf16> -> tensor<8x1024x50304xf32>
    %loss = mt.cross_entropy %x, %labels : tensor<8x1024x50304xf32>, tensor<8x1024xi32> -> tensor<f32>
    %dx = mt.cross_entropy_grad %one, %x, %labels : tensor<f32>, tensor<8x1024x50304xf32>, tensor<8x1024xi32> -> tensor<8x1024x50304xf32>
    %d = mt.convert %dx : tensor<8x1024x50304xf32> -> tensor<8x1024x50304xbf16>
    // after
    %loss, %d = mt.fused_cross_entropy %one, %logits, %labels : tensor<f32>, tensor<8x1024x50304xbf16>, tensor<8x1024xi32> -> tensor<f32>, tensor<8x1024x50304xbf16>
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

#endif // MT_TRANSFORMS_FUSION_PASSES_TD
