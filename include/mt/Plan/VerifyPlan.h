//===- VerifyPlan.h - what every plan must satisfy --------------*- C++ -*-===//
//
// A plan file that passed its header and checksum can still be one no
// runtime can run: written by a buggy or newer producer, or crafted. These
// checks depend on the plan alone (not on which rank reads it), so mt-run,
// mt-ckpt and mtc's own output go through the same ones.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_VERIFYPLAN_H
#define MT_PLAN_VERIFYPLAN_H

#include "plan.pb.h"

#include "llvm/Support/Error.h"

namespace mt {

/// Success, or the first inconsistency found, naming the field and the
/// values: the layout's sizes and stages, the batch configuration, every
/// parameter (shape, dtype, stacking, sharding), every function (role,
/// stage, code object, tensor specs, the loss mask's and loss scale's
/// types), the stages' parameter ranges and the loss scaling.
llvm::Error verifyPlan(const plan::Plan &plan);

} // namespace mt

#endif // MT_PLAN_VERIFYPLAN_H
