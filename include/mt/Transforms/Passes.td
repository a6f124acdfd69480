//===- Passes.td - passes over the mt dialect ------------------------------===//
#ifndef MT_TRANSFORMS_PASSES_TD
#define MT_TRANSFORMS_PASSES_TD

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
    change: tied language-model heads produce the padded logits, and the
    `mt.cross_entropy` that consumes them gets `num_classes` set to the real
    vocabulary, so padded classes never count.
  }];
  let options = [
    Option<"multiple", "multiple", "int64_t", /*default=*/"1",
           "round the vocabulary up to a multiple of this (1: no padding)">,
  ];
  let dependentDialects = ["::mt::MTDialect"];
}

#endif // MT_TRANSFORMS_PASSES_TD
