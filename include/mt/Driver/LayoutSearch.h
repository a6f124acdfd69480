//===- LayoutSearch.h - mtc --search-layout and --explain -------*- C++ -*-===//
//
// Ranks every layout of a model on a cluster it has never run on: the
// layouts that divide the GPUs, the layers and the batch are enumerated,
// priced from probe compiles (mt/Driver/LayoutProbe.h), pruned where their
// memory does not fit and ranked by predicted step time. The fastest are
// then compiled in full, in order, and only those whose exact memory report
// fits are proposed, with that figure.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_LAYOUTSEARCH_H
#define MT_DRIVER_LAYOUTSEARCH_H

#include "mt/Driver/TrainingCompiler.h"
#include "mt/Search/Cluster.h"
#include "mt/Search/LayoutSpace.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mt {

struct LayoutSearchOptions {
  Cluster cluster;
  /// Choices the command line fixed (the rest of the bounds the search
  /// fills in from the cluster, the model and the batch).
  LayoutBounds fixed;
  /// Layouts proposed.
  int64_t top = 5;
  /// Print the best one's time and memory breakdown.
  bool explain = false;
};

/// mtc --search-layout: the table of the best layouts and a last line
/// "best: <mtc flags>". False with `error` when no layout fits or the model
/// cannot be searched.
bool searchLayouts(mlir::ModuleOp parsed, const CompileSettings &base,
                   const LayoutSearchOptions &options, llvm::raw_ostream &out, std::string &error);

/// mtc --explain without a search: the prediction for the layout of
/// `settings` on `cluster`, with its breakdown and its exact peak memory.
bool explainLayout(mlir::ModuleOp parsed, const CompileSettings &settings, const Cluster &cluster,
                   llvm::raw_ostream &out, std::string &error);

/// The layout `settings` describe, and settings for `layout` on top of
/// `base`.
Layout layoutOf(const CompileSettings &settings);
CompileSettings settingsFor(const Layout &layout, const CompileSettings &base);

} // namespace mt

#endif // MT_DRIVER_LAYOUTSEARCH_H
