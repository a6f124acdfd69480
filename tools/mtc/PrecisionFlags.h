//===- PrecisionFlags.h - mtc's mixed-precision flags ----------*- C++ -*-===//
#ifndef MT_TOOLS_MTC_PRECISIONFLAGS_H
#define MT_TOOLS_MTC_PRECISIONFLAGS_H

#include "mt/Driver/TrainingCompiler.h"

#include "llvm/Support/CommandLine.h"

#include <string>

/// The category of --bf16, --fp16 and the loss-scale flags in --help.
llvm::cl::OptionCategory &precisionCategory();

/// --bf16 / --fp16 as the activations' type.
mt::ActivationType activationTypeFromFlags();

/// Whether --tp-comm-16bit was given (training plans only).
bool tpComm16BitGiven();

/// Copies the precision flags into `settings`; false with `error` when
/// they contradict each other or a loss-scale flag is out of range.
bool applyPrecisionFlags(mt::CompileSettings &settings, std::string &error);

/// The plan's loss scaling (--fp16); lib/Driver records the activation type.
void lossScalingConfig(mt::plan::Config &config);

#endif // MT_TOOLS_MTC_PRECISIONFLAGS_H
