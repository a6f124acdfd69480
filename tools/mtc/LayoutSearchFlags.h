//===- LayoutSearchFlags.h - mtc --search-layout, --explain -----*- C++ -*-===//
#ifndef MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H
#define MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H

#include "mt/Driver/TrainingCompiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"

/// The category of the cluster and search flags in --help.
llvm::cl::OptionCategory &layoutSearchCategory();

/// --gpus-per-node (0: not given).
int64_t gpusPerNodeFlag();

/// Whether --search-layout or --explain asks for a prediction instead of a
/// plan; false with `error` set when the cluster flags are misplaced or a
/// plan is asked for too (`planWanted`: -o or --inference).
bool predictionAsked(bool reportParallel, bool planWanted, bool &asked, std::string &error);

/// Runs the search or the explanation on the model as parsed, with the
/// command line's settings; the layout flags the command line gave fix
/// those choices of a search. The exit status.
int runPrediction(mlir::ModuleOp parsed, mt::CompileSettings settings);

#endif // MT_TOOLS_MTC_LAYOUTSEARCHFLAGS_H
