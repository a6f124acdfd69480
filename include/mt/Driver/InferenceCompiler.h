//===- InferenceCompiler.h - one compile of a model for generation -*- C++ -*-===//
//
// mtc --inference: the model's prefill and decode functions over KV caches
// (mt-build-inference), described as a plan mt-generate runs.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DRIVER_INFERENCECOMPILER_H
#define MT_DRIVER_INFERENCECOMPILER_H

#include "mt/Driver/TrainingCompiler.h"

namespace mt {

struct InferenceSettings {
  int64_t vocabMultiple = 1;
  /// Tensor-parallel ranks: each holds its heads' caches and its pieces of
  /// the parameters; every rank gets the whole logits.
  int64_t tp = 1;
  /// Sequences run at once (a beam search's width, a batch of prompts).
  int64_t batch = 1;
  /// Prompt tokens one prefill call takes (0: min(128, capacity)); an
  /// encoder-decoder's encoder input length (required).
  int64_t prefillLength = 0;
  /// An encoder-decoder's decoder tokens one prefill call takes (0:
  /// min(128, capacity)).
  int64_t decoderPrefillLength = 0;
  /// Positions a KV cache holds (0: the position table's rows).
  int64_t capacity = 0;
  /// The activations' type (mt-cast-activations); parameters, caches and
  /// logits stay f32.
  ActivationType activationType = ActivationType::F32;
  /// The prefill returns every token's logits (to check them), not only the
  /// last prompt token's, which is all generation reads.
  bool allPrefillLogits = false;
};

/// Compiles the parsed `module` in place into the inference functions and
/// describes them in `plan` (without code; attachNativeCode adds it). False
/// with `error`, or with `error` empty when the diagnostics said why.
bool compileInference(mlir::ModuleOp module, const InferenceSettings &settings, plan::Plan &plan,
                      std::string &error, const ConfigurePassManager &configure = nullptr);

} // namespace mt

#endif // MT_DRIVER_INFERENCECOMPILER_H
