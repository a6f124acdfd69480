//===- InferenceCompiler.cpp - one compile of a model for generation -------===//
#include "mt/Driver/InferenceCompiler.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Driver/ModelArchitecture.h"
#include "mt/Driver/PlanBuilder.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Plan/PlanEnums.h"

using namespace mlir;

namespace mt {

namespace {

/// The rows of the model's position table, or 0 without one.
int64_t positionRows(func::FuncOp model) {
  int64_t rows = 0;
  model.walk([&](PositionEmbeddingOp p) {
    rows = std::max(rows, cast<RankedTensorType>(p.getTable().getType()).getDimSize(0));
  });
  return rows;
}

} // namespace

bool compileInference(ModuleOp module, const InferenceSettings &s, plan::Plan &plan,
                      std::string &error, const ConfigurePassManager &configure) {
  std::vector<func::FuncOp> models = modelFunctions(module);
  if (models.size() != 1) {
    error = "--inference compiles one model function, found " + std::to_string(models.size());
    return false;
  }
  func::FuncOp model = models.front();
  if (s.batch < 1 || s.prefillLength < 0 || s.decoderPrefillLength < 0 || s.capacity < 0 ||
      s.vocabMultiple < 1 || s.tp < 1) {
    error = "--inference needs --micro-batch-size >= 1, --seq-length >= 0, "
            "--decoder-seq-length >= 0, --inference-max-seq-length >= 0, "
            "--make-vocab-size-divisible-by >= 1 and --tp >= 1";
    return false;
  }
  // An encoder-decoder (T5): --seq-length is the encoder's input, and the
  // decoder's prefill takes --decoder-seq-length tokens.
  bool encoderDecoder = hasDecoderInputs(module);
  if (encoderDecoder && s.prefillLength == 0) {
    error = "an encoder-decoder model generates from an encoder input of --seq-length tokens "
            "at most: give --seq-length";
    return false;
  }
  if (!encoderDecoder && s.decoderPrefillLength > 0) {
    error = "--decoder-seq-length is for encoder-decoder models; this one has one sequence "
            "(the prefill takes --seq-length tokens)";
    return false;
  }
  int64_t table = positionRows(model);
  int64_t capacity = s.capacity ? s.capacity : table;
  if (capacity < 1) {
    error = "the model has no position table: give --inference-max-seq-length";
    return false;
  }
  if (table && capacity > table) {
    error = "--inference-max-seq-length " + std::to_string(capacity) + " exceeds the model's " +
            std::to_string(table) + " positions";
    return false;
  }
  int64_t chosen = encoderDecoder ? s.decoderPrefillLength : s.prefillLength;
  int64_t prefill = chosen ? chosen : std::min<int64_t>(128, capacity);
  if (prefill > capacity) {
    error = std::string(encoderDecoder ? "--decoder-seq-length " : "--seq-length ") +
            std::to_string(prefill) +
            " (the prompt tokens a prefill call "
            "takes) exceeds the KV cache's " +
            std::to_string(capacity) + " positions";
    return false;
  }
  std::string name = model.getSymName().str();
  plan::ModelArchitecture architecture = describeArchitecture(model);

  PassManager pm(module.getContext());
  if (configure && failed(configure(pm)))
    return false;
  InferenceOptions options;
  options.makeVocabSizeDivisibleBy = s.vocabMultiple;
  options.batchSize = s.batch;
  options.prefillLength = prefill;
  options.capacity = capacity;
  options.encoderLength = encoderDecoder ? s.prefillLength : 0;
  options.activationType = s.activationType;
  options.allPrefillLogits = s.allPrefillLogits;
  options.tensorParallel = s.tp;
  buildInferencePipeline(pm, options);
  if (failed(pm.run(module)))
    return false;
  if (!describeInferencePlan(module, name, s.tp, plan, error))
    return false;
  plan::Config &config = *plan.mutable_config();
  *config.mutable_architecture() = architecture;
  config.set_global_batch_size(s.batch);
  config.set_data_parallel_size(1);
  config.set_activation_type(s.activationType == ActivationType::BF16  ? plan::BF16
                             : s.activationType == ActivationType::F16 ? plan::F16
                                                                       : plan::F32);
  plan::Parallelism &parallel = *config.mutable_parallel();
  parallel.set_tensor_parallel_size(s.tp);
  parallel.set_pipeline_parallel_size(1);
  parallel.set_data_parallel_size(1);
  parallel.set_schedule(plan::Parallelism::ONE_F_ONE_B);
  parallel.set_virtual_stages(1);
  return true;
}

} // namespace mt
