//===- ModelArchitecture.h - what a model is, from its IR ------*- C++ -*-===//
//
// Reads a logical model (after the frontend, before any partitioning) for
// what the parameter table does not say: heads, norm and epsilon,
// activation, positions, whether the LM head is the embedding table,
// biases, dropout rates. The plan records it; checkpoints carry it; the
// Hugging Face exporter and generation read it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_MODELARCHITECTURE_H
#define MT_DRIVER_MODELARCHITECTURE_H

#include "plan.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mt {

/// The architecture of `model` (a function with mt.param arguments).
plan::ModelArchitecture describeArchitecture(mlir::func::FuncOp model);

} // namespace mt

#endif // MT_DRIVER_MODELARCHITECTURE_H
