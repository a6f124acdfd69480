//===- OpRecorder.h - what a compiled function runs, for pricing -*- C++ -*-===//
//
// Walks a function of a compiled training step and records, in order, its
// kernels, collectives and waits (mt/Search/OpRecord.h). Views and
// bookkeeping ops once bufferized (reshapes, layer slices, mesh
// annotations) run no kernel and are left out.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_OPRECORDER_H
#define MT_DRIVER_OPRECORDER_H

#include "mt/Search/OpRecord.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace mt {

std::vector<OpRecord> recordOps(mlir::func::FuncOp fn);

} // namespace mt

#endif // MT_DRIVER_OPRECORDER_H
