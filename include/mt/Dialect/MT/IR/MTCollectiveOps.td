//===- MTCollectiveOps.td - communication between ranks of a mesh ---------===//
#ifndef MT_COLLECTIVE_OPS_TD
#define MT_COLLECTIVE_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mt/Dialect/MT/IR/MTAttrs.td"
include "mt/Dialect/MT/IR/MTInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

/// A collective of a whole group, counted in the plan's traffic report.
def MT_GroupTraffic : DeclareOpInterfaceMethods<MT_CollectiveOpInterface, ["getGroupTrafficBytes"]>;

// Collectives have side effects: they must not be reordered, duplicated or
// removed behind the plan checker's back.
class MT_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : MT_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        DeclareOpInterfaceMethods<MT_CollectiveOpInterface, ["getGroupAxes"]>])> {
  let hasVerifier = 1;
}

def MT_AllReduceOp : MT_CollectiveOp<"all_reduce",
    [MT_Differentiable, MT_GroupTraffic, MT_ShapeInferenceOpInterface, AllTypesMatch<["input", "result"]>]> {
  let summary = "combines a tensor across the ranks of mesh axes";
  let description = [{
    Every rank of each group (the ranks that differ only in `axes`) ends with
    the `reduction` of the group's inputs.

    ```mlir
    %y = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum : tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, MT_ReductionKindAttr:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `reduction` `=` `` $reduction attr-dict `:` type($input)
  }];
}

def MT_AllGatherOp : MT_CollectiveOp<"all_gather", [MT_Differentiable, MT_GroupTraffic,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "concatenates the group's shards along a dimension";
  let description = [{
    Every rank of a group receives the group's inputs concatenated along
    `dim`, in the order of the group's ranks.

    ```mlir
    %y = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<8x512x768xf32> -> tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `dim` `=` $dim attr-dict `:` type($input) `->` type($result)
  }];
}

def MT_ReduceScatterOp : MT_CollectiveOp<"reduce_scatter", [MT_Differentiable, MT_GroupTraffic,
    DeclareOpInterfaceMethods<MT_ShapeInferenceOpInterface, ["inferResultTypes"]>]> {
  let summary = "reduces across the group and leaves each rank one shard";
  let description = [{
    The group's inputs are combined by `reduction`; rank `r` of the group keeps
    the `r`-th of the equal pieces along `dim`.

    ```mlir
    %y = mt.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<8x1024x768xf32> -> tensor<8x512x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim,
                       MT_ReductionKindAttr:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `dim` `=` $dim `reduction` `=` `` $reduction attr-dict
    `:` type($input) `->` type($result)
  }];
}

def MT_CollectiveWaitOp : MT_Op<"collective_wait", [AllTypesMatch<["pending", "result"]>]> {
  let summary = "where a collective's result must be complete";
  let description = [{
    Splits a collective in two: the `mt.all_reduce`, `mt.all_gather` or
    `mt.reduce_scatter` that defines `pending` starts where it stands (its
    input is consumed there), and its result is complete only here; `result`
    is that result.
    The compute between the two runs while the collective is in flight
    (mt-overlap-collectives puts the wait before the result's first use).
    Like a collective, it must not be moved, duplicated or removed.

    ```mlir
    %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    %dx = mt.matmul %dy, %w : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
    %y = mt.collective_wait %g : tensor<2x8x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$pending);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$pending attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MT_SendOp : MT_CollectiveOp<"send"> {
  let summary = "sends a tensor to the rank at an offset along one mesh axis";
  let description = [{
    Point-to-point: the rank at coordinate `c` along `axis` sends to the rank
    at `c + offset` (same coordinates on every other axis). `channel` pairs a
    send with the `mt.recv` on the peer that has the same channel and the
    opposite offset. Ranks whose peer would fall outside the axis send
    nothing (the last pipeline stage has no next stage).

    ```mlir
    mt.send %act on @mesh axis = "pp" offset = 1 channel = 0 : tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrAttr:$axis, I64Attr:$offset, I64Attr:$channel);
  let assemblyFormat = [{
    $input `on` $mesh `axis` `=` $axis `offset` `=` $offset `channel` `=` $channel attr-dict
    `:` type($input)
  }];
}

def MT_RecvOp : MT_CollectiveOp<"recv"> {
  let summary = "receives a tensor from the rank at an offset along one mesh axis";
  let description = [{
    The counterpart of `mt.send`: receives from the rank at `c + offset`
    along `axis`, on `channel`. Ranks whose peer would fall outside the axis
    receive nothing; the result is then undefined and must not be used.

    ```mlir
    %act = mt.recv on @mesh axis = "pp" offset = -1 channel = 0 : tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrAttr:$axis, I64Attr:$offset,
                       I64Attr:$channel);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `on` $mesh `axis` `=` $axis `offset` `=` $offset `channel` `=` $channel attr-dict
    `:` type($result)
  }];
}

#endif // MT_COLLECTIVE_OPS_TD
