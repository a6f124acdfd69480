//===- MTInterfaces.td - op interfaces of the mt dialect ------------------===//
#ifndef MT_INTERFACES_TD
#define MT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def MT_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op that communicates between ranks of a device mesh. The plan checker
    uses it to match every rank's sequence of collectives (order, group,
    sizes, element types) before a plan is emitted.
  }];
  let methods = [
    InterfaceMethod<"The mesh the op communicates over.",
      "::mlir::FlatSymbolRefAttr", "getMeshRef", (ins),
      [{ return $_op.getMeshAttr(); }]>,
    InterfaceMethod<"The mesh axes whose ranks take part, outermost first.",
      "::llvm::SmallVector<::llvm::StringRef>", "getGroupAxes">,
    InterfaceMethod<[{The bytes one call of a group collective moves, for the plan's
      traffic report: the larger of its input and result. 0 for point-to-point
      transfers, which the pipeline schedule accounts for.}],
      "int64_t", "getGroupTrafficBytes", (ins), [{}], [{ return 0; }]>,
  ];
}

def MT_ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    Computes an op's result types from its operand types. Shape
    specialization (mt-specialize-shapes) uses it to propagate the batch and
    sequence sizes chosen at compile time through a model written with `?`.
    The default suits ops whose single result has the first operand's type.
  }];
  let methods = [
    InterfaceMethod<"The result types implied by the current operand types.",
      "::llvm::SmallVector<::mlir::Type>", "inferResultTypes", (ins), [{}],
      [{
        ::llvm::SmallVector<::mlir::Type> types;
        if ($_op->getNumResults() == 1 && $_op->getNumOperands() >= 1)
          types.push_back($_op->getOperand(0).getType());
        else
          llvm::append_range(types, $_op->getResultTypes());
        return types;
      }]>,
  ];
}

def MT_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op's vector-Jacobian product: mt-derive-gradients walks a model
    backwards and asks each op to add, to the adjoints of its operands, the
    VJP of its results' adjoints (`grad.adjoint(result)`, null for a result
    that does not reach the loss). The rule builds ops at `grad.loc()` with
    `grad.builder()` and adds with `grad.accumulate(operand, delta)`; an op
    through which no gradient flows (constants, the loss's row maximum)
    adds nothing. docs/autodiff.md lists the rules.
  }];
  let methods = [
    InterfaceMethod<"Adds the VJP of the op's result adjoints to its operands' adjoints.",
      "::mlir::LogicalResult", "buildVjp", (ins "::mt::GradientBuilder &":$grad)>,
  ];
}

/// The trait list entry of a differentiable op (its rule in MT*Gradients.cpp).
def MT_Differentiable : DeclareOpInterfaceMethods<MT_DifferentiableOpInterface>;

def MT_PointwiseOpInterface : OpInterface<"PointwiseOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op whose result element at each position is a function of its
    operands' elements at the same position. An operand has the result's
    shape or a suffix of it, and is broadcast over the leading dimensions
    (a bias). Only that function is the op's own: the passes treat every
    such op alike. It lowers to one linalg.generic (computing in f32 for
    16-bit tensors), keeps whatever tensor-parallel layout its operands
    have (a whole operand takes this rank's piece of a split one), and runs
    on 16-bit activations under --bf16/--fp16.
  }];
  let methods = [
    InterfaceMethod<"The result element from the operands' elements (f32 scalars).",
      "::mlir::Value", "buildScalar",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc, "::mlir::ValueRange":$operands)>,
    InterfaceMethod<[{Whether a feature split entering the op leaves through its result:
      mt-partition-tensor-parallel makes a linear column-parallel only when
      its split output reaches ops that consume or carry the split. A residual
      sum does not carry it, so the residual stream stays whole.}],
      "bool", "carriesSplit", (ins), [{}], [{ return true; }]>,
  ];
}

/// The trait list entry of a pointwise op (its buildScalar beside its verifier).
def MT_Pointwise : DeclareOpInterfaceMethods<MT_PointwiseOpInterface>;

/// The trait of an op whose activations may be 16-bit (mt::RunsIn16Bits,
/// MTInterfaces.h): it computes in fp32 inside its kernel.
def MT_RunsIn16Bits : NativeOpTrait<"RunsIn16Bits"> {
  let cppNamespace = "::mt";
}

def MT_TensorParallelOpInterface : OpInterface<"TensorParallelOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op's tensor-parallel rule: mt-partition-tensor-parallel walks a model
    in program order and asks each op to rewrite itself into what one rank
    of the tensor-parallel group runs, given its operands' layouts
    (replicated, varying, split along a dimension, partial sums). The rule
    decides its result layouts and its parameters' layouts, and inserts the
    collectives it needs, with `tp` (TensorParallelBuilder). `splitThrough`
    tells the pass where a feature split entering the op goes, which is how
    it finds the linears that can be column-parallel. Pointwise ops
    (PointwiseOpInterface) need no rule of their own; an op with neither
    runs replicated. docs/parallelism.md describes the layouts.
  }];
  let methods = [
    InterfaceMethod<"Rewrites the op for one rank of the group, given its operands' layouts.",
      "::mlir::LogicalResult", "partitionTensorParallel",
      (ins "::mt::TensorParallelBuilder &":$tp)>,
    InterfaceMethod<[{A split along `dim` of operand `operand`: the dimension along which
      the results stay split, kSplitConsumed (a row-parallel contraction, the
      vocab-parallel loss) or kSplitBlocked.}],
      "int64_t", "splitThrough", (ins "unsigned":$operand, "int64_t":$dim), [{}],
      [{ return ::mt::kSplitBlocked; }]>,
  ];
}

/// The trait list entry of an op with a tensor-parallel rule
/// (MT*TensorParallel.cpp); MT_SplitFlow when a feature split passes through it.
def MT_TensorParallel : DeclareOpInterfaceMethods<MT_TensorParallelOpInterface>;
def MT_SplitFlow : DeclareOpInterfaceMethods<MT_TensorParallelOpInterface, ["splitThrough"]>;

def MT_ContractionOpInterface : OpInterface<"ContractionOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op whose result elements are sums of products over one dimension of
    length k (a linear, a matmul, attention scores and context, fused
    attention). Its work is, unless the op says otherwise, 2k operations
    per result element; every other op counts one per result element,
    being bound by memory rather than arithmetic. The recompute planner and
    the memory report weigh recomputation with it (mt/Analysis/OpCost.h).
  }];
  let methods = [
    InterfaceMethod<"The length k of the summed dimension (0 when unknown).",
      "int64_t", "getContractionDepth">,
    InterfaceMethod<[{The floating-point operations of one execution (0 when a size is
      unknown): 2k per element of the first result unless the op holds
      several contractions (fused attention: scores and context).}],
      "int64_t", "getFlops", (ins), [{}],
      [{
        auto out = ::llvm::dyn_cast<::mlir::RankedTensorType>($_op->getResult(0).getType());
        int64_t k = $_op.getContractionDepth();
        return out && out.hasStaticShape() ? 2 * k * out.getNumElements() : 0;
      }]>,
  ];
}

def MT_InPlaceOpInterface : OpInterface<"InPlaceOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op whose result may live in the buffer of one of its operands: an
    accumulation (`mt.accumulate`, a matmul or embedding gradient with
    `plus`) or a view of a layer of a stacked tensor. The activation-memory
    analysis follows these to tell the gradient accumulators' buffers
    (which the runtime holds) from the step's own temporaries.
  }];
  let methods = [
    InterfaceMethod<"The operand whose buffer the result takes over, or null.",
      "::mlir::Value", "getInPlaceOperand">,
  ];
}

def MT_DropoutKeyedOpInterface : OpInterface<"DropoutKeyedOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op that drops elements by the dropout rule: its mask is keyed by a
    seed, a site (`stream`) and the index of the layer it belongs to
    (`layer`, absent outside layers). mt-unroll-layers numbers each copy's
    layer; mt-share-stage-programs compiles pipeline stages that differ only
    in their layers once, with the layer made relative to the stage's first.
  }];
  let methods = [
    InterfaceMethod<"The layer index in the key (none outside layers).",
      "std::optional<int64_t>", "getKeyLayer", (ins), [{}],
      [{
        if (auto layer = $_op.getLayerAttr())
          return layer.getInt();
        return std::nullopt;
      }]>,
    InterfaceMethod<"Sets the layer index in the key.",
      "void", "setKeyLayer", (ins "int64_t":$layer), [{}],
      [{ $_op.setLayerAttr(::mlir::IntegerAttr::get(
             ::mlir::IntegerType::get($_op->getContext(), 64), layer)); }]>,
    InterfaceMethod<[{Turns the op's dropout off (evaluation and inference programs):
      returns the value that replaces the op's result, built before it with
      `b`, or null when the op stays with its rate set to 0 (the default).}],
      "::mlir::Value", "withoutDropout", (ins "::mlir::OpBuilder &":$b), [{}],
      [{
        $_op.setRate(::llvm::APFloat(0.0));
        return {};
      }]>,
  ];
}

/// The trait list entry of a keyed op that replaces itself when dropout is off.
def MT_DropoutKeyedReplaced : DeclareOpInterfaceMethods<MT_DropoutKeyedOpInterface, ["withoutDropout"]>;

#endif // MT_INTERFACES_TD
