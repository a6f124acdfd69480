//===- LayoutProbe.h - the compiler's figures for the layout search -*- C++ -*-===//
//
// The layout search does not compile every layout. For each tensor-parallel
// size, sequence parallelism, recomputation and micro-batch size it compiles
// a probe: the model with its layer stack cut to 5 layers, on 4 pipeline
// stages of 1, 2, 1 and 1 layers (the first with the embedding, the last
// with the head), and reads from the compiled step what each stage holds
// (the memory report's figures) and runs (mt/Search/OpRecord.h).
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_LAYOUTPROBE_H
#define MT_DRIVER_LAYOUTPROBE_H

#include "mt/Driver/TrainingCompiler.h"
#include "mt/Search/LayoutEstimate.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mt {

/// The layers of the model's one layer stack; false with `error` when it
/// has none, or several (an encoder-decoder's).
bool stackedLayers(mlir::ModuleOp parsed, int64_t &layers, std::string &error);

/// A copy of the model as parsed with `layers` layers in its stack.
mlir::OwningOpRef<mlir::ModuleOp> withLayers(mlir::ModuleOp parsed, int64_t layers);

/// Compiles the probe of `parsed` for the tensor-parallel size,
/// sequence parallelism, recomputation, micro-batch size and the rest of
/// `settings` (its pipeline and data-parallel sizes are the probe's own).
/// `tokens` is a sequence's length as compiled. False with `error` (the
/// compiler's own message) when the model does not take these settings.
bool compileProbe(mlir::ModuleOp parsed, const CompileSettings &settings,
                  std::vector<ProbeStage> &stages, int64_t &tokens, std::string &error);

/// Compiles the probe again with the distributed optimizer over 2 and 4
/// data-parallel ranks and adds its buffers to `stages`; false with `error`
/// when the model does not take it.
bool addDistributedProbe(mlir::ModuleOp parsed, const CompileSettings &settings,
                         std::vector<ProbeStage> &stages, std::string &error);

} // namespace mt

#endif // MT_DRIVER_LAYOUTPROBE_H
