//===- MTActivationOps.td - activations and their gradients -----------------===//
#ifndef MT_ACTIVATION_OPS_TD
#define MT_ACTIVATION_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"

def MT_GeluOp : MT_Op<"gelu", [MT_Differentiable, MT_Pointwise, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "GeLU activation";
  let description = [{
    `x * Phi(x)`; with `approximate = tanh`, GPT-2's
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.

    ```mlir
    %y = mt.gelu %x approximate = tanh : tensor<8x1024x3072xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       MT_GeluApproximationAttr:$approximate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `approximate` `=` `` $approximate attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_SiluOp : MT_Op<"silu", [MT_Differentiable, MT_Pointwise, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "SiLU (swish) activation";
  let description = [{
    `x * sigmoid(x)`, elementwise: the gate of SwiGLU MLPs (Llama-style).
    Its gradient is `mt.silu_grad`. Pointwise, so it lowers, shards and runs
    in 16 bits as every pointwise op does.

    ```mlir
    %y = mt.silu %x : tensor<8x1024x2816xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_SiluGradOp : MT_Op<"silu_grad", [MT_Pointwise, Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "vector-Jacobian product of mt.silu";
  let description = [{
    `grad * s * (1 + input * (1 - s))` with `s = sigmoid(input)`: the
    gradient reaching `mt.silu`'s input, given the gradient `grad` of its
    result.

    ```mlir
    %dx = mt.silu_grad %dy, %x : tensor<8x1024x2816xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_ReluOp : MT_Op<"relu", [MT_Differentiable, MT_Pointwise, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "rectified linear unit";
  let description = [{
    `max(x, 0)`, elementwise: the feed-forward activation of the original
    Transformer and of T5 v1.0. Its gradient is `mt.relu_grad` (0 at 0, as
    PyTorch's). Pointwise, so it lowers, shards and runs in 16 bits as every
    pointwise op does.

    ```mlir
    %y = mt.relu %x : tensor<8x512x2048xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_ReluGradOp : MT_Op<"relu_grad", [MT_Pointwise, Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "vector-Jacobian product of mt.relu";
  let description = [{
    `grad` where `input > 0`, else 0: the gradient reaching `mt.relu`'s
    input, given the gradient `grad` of its result.

    ```mlir
    %dx = mt.relu_grad %dy, %x : tensor<8x512x2048xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_TanhOp : MT_Op<"tanh", [MT_Differentiable, MT_Pointwise, Pure,
    MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "hyperbolic tangent";
  let description = [{
    `tanh(x)`, elementwise: the activation of BERT's pooler (the dense layer
    over the first token that feeds the sentence-order head). Its gradient is
    `mt.tanh_grad`. Pointwise, so it lowers, shards and runs in 16 bits as
    every pointwise op does.

    ```mlir
    %y = mt.tanh %x : tensor<8x512x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_TanhGradOp : MT_Op<"tanh_grad", [MT_Pointwise, Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "vector-Jacobian product of mt.tanh";
  let description = [{
    `grad * (1 - tanh(input)^2)`: the gradient reaching `mt.tanh`'s input,
    given the gradient `grad` of its result.

    ```mlir
    %dx = mt.tanh_grad %dy, %x : tensor<8x512x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$grad, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_BiasGeluOp : MT_Op<"bias_gelu", [MT_RunsIn16Bits, MT_Differentiable, Pure, MT_ShapeInferenceOpInterface,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "GeLU of input plus a bias, in one kernel";
  let description = [{
    `gelu(input + bias)`, the bias broadcast over the last dimension, with
    the approximations of `mt.gelu`. mt-fuse-bias-gelu makes it from a
    linear's bias and the GeLU that follows, so the sum never goes to
    memory: one pass over the data instead of two (Megatron's bias-GeLU
    fusion).

    ```mlir
    %y = mt.bias_gelu %h, %b approximate = tanh : tensor<8x1024x3072xbf16>, tensor<3072xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$bias,
                       MT_GeluApproximationAttr:$approximate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $bias `approximate` `=` `` $approximate attr-dict `:` type($input) `,` type($bias)
  }];
  let hasVerifier = 1;
}

#endif // MT_ACTIVATION_OPS_TD
