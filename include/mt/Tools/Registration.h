//===- Registration.h - what the mt tools know about -----------*- C++ -*-===//
#ifndef MT_TOOLS_REGISTRATION_H
#define MT_TOOLS_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mt {

/// The mt dialect and the upstream dialects the compiler uses.
void registerDialects(mlir::DialectRegistry &registry);

/// Every project pass and pipeline, plus the upstream passes pipelines use.
void registerPassesAndPipelines();

} // namespace mt

#endif // MT_TOOLS_REGISTRATION_H
