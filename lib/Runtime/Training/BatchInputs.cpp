//===- BatchInputs.cpp - a micro-batch into a plan's batch buffers --------===//
#include "mt/Runtime/Training/BatchInputs.h"

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Code/Initializer.h"

#include <set>

namespace mt {

namespace {

/// The model's further batch inputs (MicroBatch::inputs) into their buffers.
bool writeModelInputs(BufferStore &buffers, const MicroBatch &batch, std::string &error) {
  static const std::set<std::string> kFilledByTrainer = {
      buffers::batch("tokens"), buffers::batch("labels"), buffers::batch("loss_mask"),
      buffers::batch("dropout_seed"), buffers::batch("loss_scale")};
  for (const std::string &name : buffers.names()) {
    if (!buffers::isBatch(name) || kFilledByTrainer.count(name))
      continue;
    std::string what = name.substr(buffers::batch("").size());
    auto it = batch.inputs.find(what);
    if (it == batch.inputs.end()) {
      error = "the model takes batch input '" + what + "', which this data does not provide" +
              " (BERT's token_types, padding_mask, sop_labels and sop_mask come from a BERT "
              "dataset: mt-data --split-sentences with a WordPiece vocabulary)";
      return false;
    }
    const std::vector<int32_t> &values = it->second;
    Buffer &b = *buffers.find(name);
    if (static_cast<int64_t>(values.size()) != b.numElements()) {
      error = "batch input '" + what + "' holds " + std::to_string(values.size()) +
              " values; the plan's buffer holds " + std::to_string(b.numElements());
      return false;
    }
    plan::DType type = buffers.dtype(name);
    for (size_t i = 0; i < values.size(); ++i) {
      switch (type) {
      case plan::I32:
        b.as<int32_t>()[i] = values[i];
        break;
      case plan::I64:
        b.as<int64_t>()[i] = values[i];
        break;
      case plan::I1:
        b.as<uint8_t>()[i] = values[i] != 0;
        break;
      case plan::F64:
        b.as<double>()[i] = values[i];
        break;
      case plan::F32:
        b.as<float>()[i] = static_cast<float>(values[i]);
        break;
      default:
        error = "batch input '" + what + "' is " + plan::DType_Name(type) +
                ": mt-run fills batch inputs as integers, flags or f32/f64 weights";
        return false;
      }
    }
  }
  return true;
}

} // namespace

int64_t dropoutSeed(uint64_t runSeed, int64_t iteration, int64_t micro) {
  return static_cast<int64_t>(splitmix64(
      runSeed ^ splitmix64(static_cast<uint64_t>(iteration) << 20 | static_cast<uint64_t>(micro))));
}

bool writeBatch(BufferStore &buffers, const plan::Config &c, const MicroBatch &batch,
                int64_t iteration, int64_t micro, double lossScale, std::string &error) {
  // An encoder-decoder model's labels and loss mask are the decoder's.
  size_t n = static_cast<size_t>(c.micro_batch_size() * c.seq_length());
  size_t targets = c.decoder_seq_length() > 0
                       ? static_cast<size_t>(c.micro_batch_size() * c.decoder_seq_length())
                       : n;
  if (batch.tokens.size() != n || batch.labels.size() != targets ||
      batch.lossMask.size() != targets) {
    error = "a micro-batch must hold " + std::to_string(n) + " tokens and " +
            std::to_string(targets) + " labels and mask values";
    return false;
  }
  for (const auto &[name, values] : {std::pair<std::string, const std::vector<int32_t> *>{
                                         buffers::batch("tokens"), &batch.tokens},
                                     {buffers::batch("labels"), &batch.labels}}) {
    Buffer *b = buffers.find(name);
    if (!b)
      continue;
    for (size_t i = 0; i < values->size(); ++i) {
      if ((*values)[i] < 0 || (*values)[i] >= c.vocab_size()) {
        error = name + " holds id " + std::to_string((*values)[i]) +
                " outside the model's vocabulary of " + std::to_string(c.vocab_size());
        return false;
      }
      b->as<int32_t>()[i] = (*values)[i];
    }
  }
  if (Buffer *b = buffers.find(buffers::batch("dropout_seed")))
    b->as<int64_t>()[0] = dropoutSeed(c.seed(), iteration, micro);
  if (Buffer *b = buffers.find(buffers::batch("loss_scale")))
    b->as<float>()[0] = static_cast<float>(lossScale);
  if (Buffer *b = buffers.find(buffers::batch("loss_mask"))) {
    bool wide = buffers.dtype(buffers::batch("loss_mask")) == plan::F64;
    for (size_t i = 0; i < targets; ++i) {
      if (wide)
        b->as<double>()[i] = batch.lossMask[i];
      else
        b->as<float>()[i] = batch.lossMask[i];
    }
  }
  return writeModelInputs(buffers, batch, error);
}

} // namespace mt
