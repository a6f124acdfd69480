//===- FusionFlags.h - mtc's kernel fusion flags ---------------*- C++ -*-===//
#ifndef MT_TOOLS_MTC_FUSIONFLAGS_H
#define MT_TOOLS_MTC_FUSIONFLAGS_H

#include "mt/Driver/TrainingCompiler.h"

#include "llvm/Support/CommandLine.h"

#include <string>

/// The category of the --fuse-* flags (and --overlap-tp-comm) in --help.
llvm::cl::OptionCategory &fusionCategory();

/// Copies the --fuse-* flags into `settings`; false with `error` set when
/// they contradict each other.
bool applyFusionFlags(mt::CompileSettings &settings, std::string &error);

#endif // MT_TOOLS_MTC_FUSIONFLAGS_H
