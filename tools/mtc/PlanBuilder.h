//===- PlanBuilder.h - the training plan from a compiled module -*- C++ -*-===//
#ifndef MT_TOOLS_MTC_PLANBUILDER_H
#define MT_TOOLS_MTC_PLANBUILDER_H

#include "mt/Plan/PlanFile.h"

#include "mlir/IR/BuiltinOps.h"

namespace mt {

/// Describes the module's functions (after mt-build-optimizer, before
/// lowering): config, parameter table and every function with a role.
/// False with `error` set when the module cannot become a plan.
bool describePlan(mlir::ModuleOp module, plan::Plan &out, std::string &error);

/// Lowers the module to native code for this machine and attaches it to
/// `out` as one shared object. False with `error` set on failure.
/// Lowers the module to native code (LLVM -O`optLevel`) and adds it to the plan.
bool attachNativeCode(mlir::ModuleOp module, plan::Plan &out, std::string &error,
                      unsigned optLevel = 3);

} // namespace mt

#endif // MT_TOOLS_MTC_PLANBUILDER_H
