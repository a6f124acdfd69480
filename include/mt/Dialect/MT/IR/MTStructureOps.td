//===- MTStructureOps.td - mesh, sharding and layer structure ops ---------===//
#ifndef MT_STRUCTURE_OPS_TD
#define MT_STRUCTURE_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_MeshOp : MT_Op<"mesh", [Symbol]> {
  let summary = "a named grid of devices";
  let description = [{
    Declares a device mesh: named axes and their sizes. Shardings and
    collectives refer to a mesh by its symbol. The product of the sizes is the
    number of ranks.

    ```mlir
    mt.mesh @mesh axes = ["dp", "pp", "tp"] shape = [2, 2, 2]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = "$sym_name `axes` `=` $axes `shape` `=` $shape attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The size of axis `name`, or std::nullopt when the mesh has no such axis.
    std::optional<int64_t> getAxisSize(::llvm::StringRef name);
    /// The number of ranks in the mesh.
    int64_t getNumRanks();
  }];
}

def MT_ShardOp : MT_Op<"shard", [MT_Differentiable, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "annotates a tensor with its layout over a mesh";
  let description = [{
    States that `input`, from here on, is laid out as `sharding` says. The op
    changes no values; sharding propagation reads it, and partitioning
    replaces it with the collectives that realise the layout change.

    ```mlir
    %y = mt.shard %x : tensor<8x1024x768xf32> to #mt.sharding<@mesh, [_, _, tp]>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, MT_ShardingAttr:$sharding);
  let results = (outs AnyRankedTensor:$result);
  // The type comes first: a trailing `: type` would be read as the
  // attribute's own type.
  let assemblyFormat = "$input `:` type($result) `to` qualified($sharding) attr-dict";
  let hasVerifier = 1;
}

def MT_LayerStackOp : MT_Op<"layer_stack", [AttrSizedOperandSegments, MT_TensorParallel,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "applies one layer body to stacked per-layer weights, L times";
  let description = [{
    The body is one transformer layer. `carried` values flow from layer to
    layer (the hidden state); each `stacked` operand holds all L layers'
    copies of one weight, with the layer index as its leading dimension. Layer
    `i` sees slice `i` of every stacked operand. A 96-layer model is as long as
    a 2-layer one, and pipeline splitting cuts the stack into ranges of
    layers. Ops in the body that draw random numbers (dropout) are keyed by
    the layer index too, so every layer draws its own mask. `first_layer`
    (default 0) is the model-wide index of the stack's first layer: a
    pipeline stage that holds layers 4..7 keeps drawing layer 4's masks.

    ```mlir
    %out = mt.layer_stack (%h = %x : tensor<8x128x64xf32>)
        layers (%g = %gammas : tensor<2x64xf32>, %b = %betas : tensor<2x64xf32>)
        -> tensor<8x128x64xf32> {
      %y = mt.layer_norm %h, %g, %b {epsilon = 1.0e-05 : f64} : tensor<8x128x64xf32>, tensor<64xf32>
      mt.yield %y : tensor<8x128x64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$carried,
                       Variadic<AnyRankedTensor>:$stacked,
                       OptionalAttr<I64Attr>:$first_layer);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of layers L (leading dimension of the stacked operands).
    int64_t getNumLayers();
  }];
}

def MT_YieldOp : MT_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"LayerStackOp">]> {
  let summary = "ends a layer body and passes the carried values on";
  let description = [{
    The values the next layer receives as its carried block arguments (and,
    after the last layer, the results of `mt.layer_stack`).

    ```mlir
    mt.yield %h : tensor<8x128x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // MT_STRUCTURE_OPS_TD
