//===- ModelInfo.h - what a model function declares ------------*- C++ -*-===//
//
// A model function is a func.func with at least one argument marked
// `mt.param`. ModelInfo lists its parameters (name, shape, dtype, how many
// layers share the declaration) for reports and later for the plan.
//
//===----------------------------------------------------------------------===//
#ifndef MT_ANALYSIS_MODELINFO_H
#define MT_ANALYSIS_MODELINFO_H

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include <optional>
#include <string>
#include <vector>

namespace mt {

struct ParamInfo {
  std::string name;
  mlir::RankedTensorType type;
  ParamAttr attr;
  unsigned argNumber = 0;
  /// Number of layers when the parameter is a stacked layer_stack operand, else 0.
  int64_t stackedLayers = 0;

  int64_t numElements() const { return type.getNumElements(); }
  /// Megatron's rule: weight decay for matrices, none for biases and norms
  /// (rank 1 per layer).
  bool decays() const { return type.getRank() - (stackedLayers ? 1 : 0) >= 2; }
};

/// True when `func` has an argument marked `mt.param` and is not a derived
/// training step.
bool isModelFunction(mlir::func::FuncOp func);

/// The parameters of a model function, in argument order.
std::vector<ParamInfo> collectParams(mlir::func::FuncOp func);

/// The model functions of `module`, in order.
std::vector<mlir::func::FuncOp> modelFunctions(mlir::ModuleOp module);
/// Whether a model function is an encoder-decoder's: batch arguments marked
/// mt.sequence (the decoder's sequence).
bool hasDecoderInputs(mlir::ModuleOp module);

/// The function's role, if it has one.
inline std::optional<FunctionRole> roleOf(mlir::Operation *fn) {
  if (auto role = fn->getAttrOfType<FunctionRoleAttr>(kRoleAttrName))
    return role.getValue();
  return std::nullopt;
}
inline void setRole(mlir::Operation *fn, FunctionRole role) {
  fn->setAttr(kRoleAttrName, FunctionRoleAttr::get(fn->getContext(), role));
}

} // namespace mt

#endif // MT_ANALYSIS_MODELINFO_H
