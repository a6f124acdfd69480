//===- LayoutSearchFlags.h - mtc --search-layout, --explain -----*- C++ -*-===//
#ifndef MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H
#define MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H

#include "mt/Driver/TrainingCompiler.h"
#include "mt/Search/LayoutSpace.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"

/// The category of the cluster and search flags in --help.
llvm::cl::OptionCategory &layoutSearchCategory();

/// --gpus-per-node (0: not given).
int64_t gpusPerNodeFlag();

/// Whether --search-layout or --explain asks for a prediction instead of a
/// plan; false with `error` set when the cluster flags are misplaced.
bool predictionAsked(bool reportParallel, bool &asked, std::string &error);

/// Runs the search or the explanation on the model as parsed, with the
/// command line's settings (`fixed`: the layout choices it gave). The exit
/// status.
int runPrediction(mlir::ModuleOp parsed, mt::CompileSettings settings,
                  const mt::LayoutBounds &fixed);

#endif // MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H
