//===- OpCost.h - what running an op again costs ----------------*- C++ -*-===//
//
// The recompute planner weighs the bytes a kept activation costs against the
// work of computing it again. Work is counted in floating-point operations:
// what a contraction states (ContractionOpInterface::getFlops: 2mnk for a
// linear, a matmul, attention scores and context; fused attention's four or
// ten score-sized products) and one per result element for everything else (elementwise ops, norms,
// collectives), which are bound by memory rather than arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef MT_ANALYSIS_OPCOST_H
#define MT_ANALYSIS_OPCOST_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace mt {

/// Estimated floating-point operations of one execution of `op`.
int64_t opFlops(mlir::Operation *op);

} // namespace mt

#endif // MT_ANALYSIS_OPCOST_H
