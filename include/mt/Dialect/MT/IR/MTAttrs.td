//===- MTAttrs.td - attributes and enums of the mt dialect ----------------===//
#ifndef MT_ATTRS_TD
#define MT_ATTRS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def MT_ReductionKind : I32EnumAttr<"ReductionKind", "how a collective combines values", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"avg", 3>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}
def MT_ReductionKindAttr : EnumAttr<MT_Dialect, MT_ReductionKind, "reduction">;

def MT_GeluApproximation : I32EnumAttr<"GeluApproximation", "which GeLU formula", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}
def MT_GeluApproximationAttr : EnumAttr<MT_Dialect, MT_GeluApproximation, "gelu_approx">;

def MT_MaskKind : I32EnumAttr<"MaskKind", "the structural mask softmax applies", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"causal", 1>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}
def MT_MaskKindAttr : EnumAttr<MT_Dialect, MT_MaskKind, "mask">;

def MT_InitKind : I32EnumAttr<"InitKind", "how a parameter is initialized", [
    I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"zeros", 1>,
    I32EnumAttrCase<"ones", 2>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}

// The numbers are the plan's (mt.plan.Function.Role): PlanBuilder checks
// each case against it at compile time.
def MT_FunctionRole : I32EnumAttr<"FunctionRole", "what a compiled function does for the runtime", [
    I32EnumAttrCase<"forward", 1>, I32EnumAttrCase<"train_step", 2>,
    I32EnumAttrCase<"eval", 3>, I32EnumAttrCase<"accumulate", 4>,
    I32EnumAttrCase<"grad_sq_norm", 5>, I32EnumAttrCase<"optimizer", 6>,
    I32EnumAttrCase<"prefill", 7>, I32EnumAttrCase<"decode", 8>,
    I32EnumAttrCase<"encode", 9>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}
def MT_FunctionRoleAttr : EnumAttr<MT_Dialect, MT_FunctionRole, "role"> {
  let summary = "what a compiled function does for the runtime (`mt.role`)";
}

def MT_BufferRole : I32EnumAttr<"BufferRole", "what a runtime buffer holds for a parameter", [
    I32EnumAttrCase<"param", 0>, I32EnumAttrCase<"param_shard", 1>,
    I32EnumAttrCase<"gradient", 2>, I32EnumAttrCase<"grad_accumulator", 3>,
    I32EnumAttrCase<"grad_shard", 4>, I32EnumAttrCase<"grad_square", 5>,
    I32EnumAttrCase<"exp_avg", 6>, I32EnumAttrCase<"exp_avg_sq", 7>,
    I32EnumAttrCase<"hyper", 8>]> {
  let cppNamespace = "::mt";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class MT_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<MT_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A double, written as a plain float literal; 0.0 when omitted.
def MT_OptionalF64Parameter : AttrOrTypeParameter<"::llvm::APFloat", "a double"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer.printFloat($_self) }];
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let defaultValue = "::llvm::APFloat(0.0)";
}

def MT_ParamAttr : MT_Attr<"Param", "param"> {
  let summary = "marks a function argument as a trainable parameter";
  let description = [{
    Attached to a model function's argument as `mt.param`. It names the
    parameter (the name checkpoints and reports use) and says how it is
    initialized. `std` is the standard deviation of a `normal` initializer;
    it is ignored by `zeros` and `ones`.

    ```mlir
    func.func @gpt(%wte: tensor<50257x768xf32>
                     {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>})
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$name,
    EnumParameter<MT_InitKind>:$init,
    MT_OptionalF64Parameter:$std);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def MT_ShardingAttr : MT_Attr<"Sharding", "sharding"> {
  let summary = "how a tensor is laid out over the axes of a device mesh";
  let description = [{
    For each tensor dimension, the list of mesh axes it is split over
    (outermost first; empty means replicated along that dimension), plus the
    mesh axes over which the tensor holds partial sums that still have to be
    reduced. `_` writes a replicated dimension, `{a, b}` a dimension split over
    two axes.

    ```mlir
    // [batch, seq, hidden]: sequence split over sp, hidden over tp.
    #mt.sharding<@mesh, [_, sp, tp]>
    // a row-parallel linear's output before its all-reduce
    #mt.sharding<@mesh, [_, _, _], partial = [tp]>
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::mlir::ArrayAttr", "mesh axes per dimension">:$dims,
    OptionalArrayRefParameter<"::mlir::StringAttr", "axes with pending partial sums">:$partial);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The mesh axes dimension `dim` is split over.
    ::llvm::SmallVector<::llvm::StringRef> getDimAxes(unsigned dim) const;
    /// Every axis the attribute names, in dimensions or in `partial`.
    ::llvm::SmallVector<::llvm::StringRef> getAllAxes() const;
  }];
}

def MT_BufferAttr : MT_Attr<"Buffer", "buffer"> {
  let summary = "the runtime buffer an argument or result of a step function is";
  let description = [{
    Attached as `mt.buffer` to the arguments and results of the functions
    mt-build-optimizer makes (accumulate, grad_sq_norm, optimizer): which of
    a parameter's buffers it is (the parameter itself or this rank's shard
    of it, a gradient, its accumulator or shard, a squared norm, an Adam
    moment), and of which parameter; `hyper` is the optimizer's
    hyper-parameter vector and names none. The plan names the runtime's
    buffers from it.

    ```mlir
    func.func @gpt_adamw(%p: tensor<768xf32> {mt.buffer = #mt.buffer<param, "ln_f.weight">},
                         ...
                         %h: tensor<8xf32> {mt.buffer = #mt.buffer<hyper>})
    ```
  }];
  let parameters = (ins
    EnumParameter<MT_BufferRole>:$role,
    OptionalParameter<"::mlir::StringAttr">:$param);
  let assemblyFormat = "`<` $role (`,` $param^)? `>`";
  let genVerifyDecl = 1;
}

#endif // MT_ATTRS_TD
