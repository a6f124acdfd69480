//===- MTTensorOps.td - reshaping, reductions and layer slicing -----------===//
#ifndef MT_TENSOR_OPS_TD
#define MT_TENSOR_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_ZerosOp : MT_Op<"zeros", [MT_Differentiable, Pure, MT_ShapeInferenceOpInterface]> {
  let summary = "a tensor of zeros";
  let description = [{
    A statically shaped tensor of zeros: the adjoint of a value the loss does
    not depend on.

    ```mlir
    %z = mt.zeros : tensor<768xf32>
    ```
  }];
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MT_ReshapeOp : MT_Op<"reshape", [MT_RunsIn16Bits, MT_Differentiable, Pure]> {
  let summary = "the same elements in row-major order, another shape";
  let description = [{
    ```mlir
    %flat = mt.reshape %x : tensor<8x1024x768xf32> -> tensor<8192x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_ConvertOp : MT_Op<"convert", [MT_Differentiable, Pure]> {
  let summary = "the same elements in another floating-point type";
  let description = [{
    Each element converted to the result's element type: exactly when the
    result is at least as wide, rounded to nearest even otherwise.
    mt-cast-to-16-bit puts one between the fp32 main parameters and the
    16-bit ops that use them, and around the ops that stay in fp32 (the
    loss, the collectives); its gradient is the gradient converted back.

    ```mlir
    %w16 = mt.convert %w : tensor<768x768xf32> -> tensor<768x768xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_ConcatOp : MT_Op<"concat", [MT_RunsIn16Bits, MT_Differentiable, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "joins tensors along one dimension";
  let description = [{
    The inverse of `mt.split`: the inputs, in order, along `dim`.

    ```mlir
    %qkv = mt.concat %q, %k, %v {dim = 2 : i64} : tensor<8x1024x768xf32>, tensor<8x1024x768xf32>, tensor<8x1024x768xf32> -> tensor<8x1024x2304xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def MT_SumToOp : MT_Op<"sum_to", [Pure]> {
  let summary = "sums over leading dimensions down to a suffix shape";
  let description = [{
    `result[s...] = sum over p... of input[p..., s...]`, where the result's
    shape is a suffix of the input's: the adjoint of a trailing broadcast
    (a bias gradient, a position-embedding gradient).

    ```mlir
    %db = mt.sum_to %dy : tensor<8x1024x768xf32> -> tensor<768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_SliceLayerOp : MT_Op<"slice_layer", [MT_Differentiable, Pure, DeclareOpInterfaceMethods<MT_InPlaceOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "one layer's slice of a stacked weight";
  let description = [{
    `result = input[layer]`: what `mt.layer_stack` hands layer `layer`, made
    explicit when a stack is unrolled.

    ```mlir
    %w3 = mt.slice_layer %w {layer = 3 : i64} : tensor<12x2304x768xf32> -> tensor<2304x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$layer);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MT_StackLayersOp : MT_Op<"stack_layers", [MT_Differentiable, Pure,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "stacks per-layer tensors along a new leading dimension";
  let description = [{
    The inverse of `mt.slice_layer` over all layers: input `i` becomes
    `result[i]` (the gradient of a stacked weight from its layers' gradients).

    ```mlir
    %dw = mt.stack_layers %d0, %d1 : tensor<64xf32>, tensor<64xf32> -> tensor<2x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def MT_InsertLayerOp : MT_Op<"insert_layer", [Pure, DeclareOpInterfaceMethods<MT_InPlaceOpInterface>, 
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>,
    AllTypesMatch<["into", "result"]>]> {
  let summary = "replaces one layer's slice of a stacked tensor";
  let description = [{
    `result = into` with `result[layer] = value`: the inverse of
    `mt.slice_layer` for one layer. A slice taken with `mt.slice_layer`,
    updated and inserted back at the same layer stays in the stacked
    tensor's buffer (mt-fuse-gradient-accumulation updates a stacked
    weight's gradient accumulator layer by layer this way).

    ```mlir
    %acc2 = mt.insert_layer %dw3 into %acc {layer = 3 : i64} : tensor<2304x768xf32> into tensor<12x2304x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, AnyRankedTensor:$into, I64Attr:$layer);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$value `into` $into attr-dict `:` type($value) `into` type($into)";
  let hasVerifier = 1;
}

#endif // MT_TENSOR_OPS_TD
