//===- MemoryBudget.h - what would make a plan fit --------------*- C++ -*-===//
//
// A plan over --memory-budget is refused at compile time. With the refusal
// mtc lists the options that would make it fit, each found by compiling the
// model with that change and accounting for its memory, not by a rule of
// thumb.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_MEMORYBUDGET_H
#define MT_DRIVER_MEMORYBUDGET_H

#include "mt/Driver/MemoryReport.h"
#include "mt/Driver/TrainingCompiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mt {

/// The changes of `settings` under which every rank of the plan fits
/// `settings.memoryBudget`, as lines "--flag=value: peak N bytes ...".
/// Single changes first; when none fits, full recomputation with each
/// other change. `parsed` is the model as parsed (before the frontend).
std::vector<std::string> optionsThatFit(mlir::ModuleOp parsed, const CompileSettings &settings);

/// Empty when every rank's peak fits settings.memoryBudget; else why not:
/// which ranks, by how much, what each holds (`report`), and the options
/// that would make it fit (compiled from `parsed`).
std::string budgetRefusal(const std::string &report, const MemoryPeaks &peaks,
                          mlir::ModuleOp parsed, const CompileSettings &settings);

/// The most any pipeline rank holds under `settings`; false when the model
/// does not compile for them.
bool peakOf(mlir::ModuleOp parsed, const CompileSettings &settings, int64_t &peak);

} // namespace mt

#endif // MT_DRIVER_MEMORYBUDGET_H
