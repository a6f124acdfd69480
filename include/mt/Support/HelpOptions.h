//===- HelpOptions.h - a tool's own options in --help -----------*- C++ -*-===//
#ifndef MT_SUPPORT_HELPOPTIONS_H
#define MT_SUPPORT_HELPOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

namespace mt {

/// Makes --help list the tool's own options (those in `categories`) and
/// moves every other registered option (LLVM's backends, MLIR's) to
/// --help-hidden, where it stays usable and listed.
void showOnlyInHelp(llvm::ArrayRef<const llvm::cl::OptionCategory *> categories);

} // namespace mt

#endif // MT_SUPPORT_HELPOPTIONS_H
