//===- ParamSummary.h - mtc --summary --------------------------*- C++ -*-===//
#ifndef MT_DRIVER_PARAMSUMMARY_H
#define MT_DRIVER_PARAMSUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mt {

/// Prints every parameter of every model function (name, shape, dtype,
/// count) and the total.
void printParamSummary(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace mt

#endif // MT_DRIVER_PARAMSUMMARY_H
