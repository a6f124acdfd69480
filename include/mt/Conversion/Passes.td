//===- Passes.td - lowerings out of the mt dialect ------------------------===//
#ifndef MT_CONVERSION_PASSES_TD
#define MT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToLinalgPass : Pass<"mt-lower-to-linalg", "mlir::ModuleOp"> {
  let summary = "lowers mt ops to linalg, tensor, arith and math on static shapes";
  let description = [{
    Every mt tensor op becomes upstream tensor-level IR: linalg.generic for
    elementwise maps, reductions and contractions, tensor slicing and
    reshaping for data movement, scf loops for scatter-adds. Dropout masks
    come from a counter-based hash of (seed, stream, layer slot, element
    index), so they are the same on every target. Collectives are left for
    the partitioner's runtime lowering and are an error here.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

#endif // MT_CONVERSION_PASSES_TD
