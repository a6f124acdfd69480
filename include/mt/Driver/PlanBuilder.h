//===- PlanBuilder.h - the training plan from a compiled module -*- C++ -*-===//
#ifndef MT_DRIVER_PLANBUILDER_H
#define MT_DRIVER_PLANBUILDER_H

#include "mt/Plan/PlanFile.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mt {

/// Describes the module's functions (after mt-build-optimizer, before
/// lowering): config, parameter table and every function with a role.
/// False with `error` set when the module cannot become a plan.
bool describePlan(mlir::ModuleOp module, plan::Plan &out, std::string &error);

/// The plan of an inference module (mt-build-inference): the parameters of
/// model `modelName` (each rank's piece of `tensorParallel`), the prefill
/// and decode functions and their buffers.
bool describeInferencePlan(mlir::ModuleOp module, const std::string &modelName,
                           int64_t tensorParallel, plan::Plan &out, std::string &error);

/// Whether mt-run can train the plan: parameters in f32 or f64 (it
/// initializes, updates and checkpoints them in those). False with `error`
/// naming the first that is not.
bool checkTrainable(const plan::Plan &plan, std::string &error);

} // namespace mt

#endif // MT_DRIVER_PLANBUILDER_H
