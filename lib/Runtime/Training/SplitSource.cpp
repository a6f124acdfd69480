//===- SplitSource.cpp - one split's samples, of a dataset or a blend ------===//
#include "mt/Runtime/Training/SplitSource.h"

#include <algorithm>

namespace mt {

int64_t DatasetSplit::numSamples() const {
  switch (family_) {
  case Family::Bert:
    return bert_.numSamples();
  case Family::T5:
    return t5_.numSamples();
  default:
    return gpt_.numSamples();
  }
}

void DatasetSplit::prepare(int64_t rows, int64_t seq, MicroBatch &batch) const {
  size_t n = static_cast<size_t>(rows * seq);
  batch.tokens.assign(n, 0);
  batch.inputs.clear();
  switch (family_) {
  case Family::T5: {
    size_t decoder = static_cast<size_t>(rows * decoderLength_);
    batch.labels.assign(decoder, 0);
    batch.lossMask.assign(decoder, 0.0f);
    batch.inputs["padding_mask"].assign(n, 0);
    batch.inputs["decoder_tokens"].assign(decoder, 0);
    return;
  }
  case Family::Bert:
    for (const char *name : {"token_types", "padding_mask", "sop_labels", "sop_mask"})
      batch.inputs[name].assign(n, 0);
    [[fallthrough]];
  default:
    batch.labels.assign(n, 0);
    batch.lossMask.assign(n, 0.0f);
  }
}

void DatasetSplit::fill(int64_t index, int64_t row, int64_t seq, MicroBatch &batch) const {
  auto put = [](const auto &from, auto &to, int64_t at) {
    std::copy(from.begin(), from.end(), to.begin() + at);
  };
  switch (family_) {
  case Family::T5: {
    T5Sample sample;
    t5_.sample(index, sample);
    put(sample.encoderTokens, batch.tokens, row * seq);
    put(sample.paddingMask, batch.inputs["padding_mask"], row * seq);
    put(sample.decoderTokens, batch.inputs["decoder_tokens"], row * decoderLength_);
    put(sample.labels, batch.labels, row * decoderLength_);
    put(sample.lossMask, batch.lossMask, row * decoderLength_);
    return;
  }
  case Family::Bert: {
    BertSample sample;
    bert_.sample(index, sample);
    put(sample.tokens, batch.tokens, row * seq);
    put(sample.labels, batch.labels, row * seq);
    put(sample.lossMask, batch.lossMask, row * seq);
    put(sample.tokenTypes, batch.inputs["token_types"], row * seq);
    put(sample.paddingMask, batch.inputs["padding_mask"], row * seq);
    // The sentence-order label weighs in at the first position only.
    batch.inputs["sop_labels"][row * seq] = sample.sentenceOrder;
    batch.inputs["sop_mask"][row * seq] = 1;
    return;
  }
  default: {
    GptSample sample;
    gpt_.sample(index, sample);
    put(sample.tokens, batch.tokens, row * seq);
    put(sample.labels, batch.labels, row * seq);
    put(sample.lossMask, batch.lossMask, row * seq);
  }
  }
}

bool SplitSource::next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) {
  if (size_ == 0 || seq != seq_) {
    DatasetSplit::Family family = parts_.empty() ? DatasetSplit::Family::Gpt : parts_[0]->family();
    error = "the " + split_ + " split" + (name_ != split_ ? " of '" + name_ + "'" : "") +
            " holds no sample of " +
            (family == DatasetSplit::Family::Bert ? "two segments in " + std::to_string(seq)
             : family == DatasetSplit::Family::T5 ? "span-corrupted text in " + std::to_string(seq)
                                                  : std::to_string(seq + 1)) +
            " tokens";
    return false;
  }
  parts_[0]->prepare(rows, seq, batch);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t i = cursor_++ % size_;
    if (blend_.dataset.empty()) {
      parts_[0]->fill(i, r, seq, batch);
      continue;
    }
    const DatasetSplit &part = *parts_[blend_.dataset[static_cast<size_t>(i)]];
    part.fill(blend_.sample[static_cast<size_t>(i)] % part.numSamples(), r, seq, batch);
  }
  return true;
}

} // namespace mt
