//===- MTShardOps.td - a rank's piece of the whole ------------------------===//
//
// The local building blocks of tensor parallelism that move no data: which
// piece of a mesh axis this rank is, taking that piece of a replicated
// tensor, and marking where a replicated value starts feeding computation
// that differs between ranks (so its gradient has to be summed).
//
//===----------------------------------------------------------------------===//
#ifndef MT_SHARD_OPS_TD
#define MT_SHARD_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_AxisIndexOp : MT_Op<"axis_index", [MT_Differentiable, Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's coordinate along one mesh axis";
  let description = [{
    A `tensor<i64>` holding the rank's position along `axis` (0 to the axis
    size - 1). Ops that work on one piece of a sharded tensor take it to find
    the global positions of their elements (vocabulary rows, dropout
    positions, sequence offsets).

    ```mlir
    %i = mt.axis_index on @mesh axis = "tp" : tensor<i64>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrAttr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`on` $mesh `axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MT_VaryOp : MT_Op<"vary", [MT_Differentiable, Pure, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a replicated value enters computation that differs per rank";
  let description = [{
    The identity on values. It marks the point where a tensor that is the
    same on every rank of the `axes` group (a replicated activation or
    parameter) starts feeding work that differs between them (a
    column-parallel linear, a sequence shard). Each rank's gradient of the
    result is then only its own contribution, so the op's vector-Jacobian
    product is an `mt.all_reduce` (sum) over `axes`: Megatron's "f" operator
    (copy to the tensor-parallel region).

    ```mlir
    %xv = mt.vary %x on @mesh axes = ["tp"] : tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `on` $mesh `axes` `=` $axes attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def MT_ShardSliceOp : MT_Op<"shard_slice", [MT_Differentiable, Pure]> {
  let summary = "this rank's piece of a replicated tensor along one dimension";
  let description = [{
    Cuts `input` into `parts` equal pieces along `dim` and returns piece
    number `index` (a `tensor<i64>`, usually an `mt.axis_index`). No data
    moves. Its gradient is `mt.shard_slice_grad`: the piece's gradient in
    place, zeros elsewhere.

    ```mlir
    %p = mt.shard_slice %pos[%i : tensor<i64>] dim = 0 parts = 2 : tensor<1024x768xf32> -> tensor<512x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$index, I64Attr:$dim,
                       I64Attr:$parts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `[` $index `:` type($index) `]` `dim` `=` $dim `parts` `=` $parts attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MT_SHARD_OPS_TD
