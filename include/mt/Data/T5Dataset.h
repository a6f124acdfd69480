//===- T5Dataset.h - T5 span-corruption samples --------------*- C++ -*-===//
//
// T5's pre-training objective (Raffel et al. 2020, section 3.1.4) over the
// documents of a dataset, with Megatron-LM's T5 batch layout:
//   1. each document of the split (without a leading <s> or trailing </s>)
//      is cut into chunks of at most R tokens, R the longest whose corrupted
//      form fits the encoder and decoder lengths; a last piece of fewer than
//      two tokens is dropped; chunks are served in an order shuffled by the
//      seed, epoch after epoch;
//   2. a chunk of n tokens gets round(0.15 n) noise tokens (at least one,
//      leaving one clean) in round(noise / 3) spans (the mean span length 3;
//      at least one, at most the clean tokens), placed as T5's
//      random_spans_noise_mask does: noise and clean lengths each a random
//      composition, spans alternating clean, noise, clean, ...;
//   3. the encoder gets the clean tokens with each noise span replaced by
//      the next sentinel, then </s>; the decoder's labels are each sentinel
//      followed by its span, then </s>; the decoder's input is the labels
//      shifted right behind the start token; both are padded (loss mask 0,
//      padding mask false).
// Every draw of sample i comes from a generator seeded by (seed, i).
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_T5DATASET_H
#define MT_DATA_T5DATASET_H

#include "mt/Data/GptDataset.h"
#include "mt/Data/IndexArray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

struct T5SpecialIds {
  int32_t pad = 0, eos = 1;
  int32_t bos = -1;          ///< stripped from a document's start; -1: none
  int32_t decoderStart = 0;  ///< the decoder's first input (Megatron: <s>, Hugging Face: pad)
  int32_t firstSentinel = 0; ///< sentinel k is firstSentinel + k
  int32_t numSentinels = 100;
};

struct T5SampleOptions {
  int64_t encoderLength = 512, decoderLength = 128;
  uint64_t seed = 1234;
  int64_t numEpochs = 1;
  double noiseDensity = 0.15, meanSpanLength = 3.0;
};

struct T5Sample {
  std::vector<int32_t> encoderTokens, paddingMask; // encoderLength each
  std::vector<int32_t> decoderTokens, labels;      // decoderLength each
  std::vector<float> lossMask;                     // decoderLength
};

/// `length` tokens of `document` from `offset`: one sample's text.
struct T5Chunk {
  int64_t document, offset, length;
};

class T5Dataset {
public:
  /// Lays out the chunks of documents [begin, end) of `documents` (which
  /// must outlive this object).
  bool build(const DocumentSource &documents, int64_t begin, int64_t end, const T5SpecialIds &ids,
             const T5SampleOptions &options, std::string &error);
  int64_t numSamples() const { return static_cast<int64_t>(order_.size()); }
  /// The chunks and their serving order, to cache (IndexCache.h); adopt()
  /// serves a cached copy after checking it fits the documents.
  const IndexArray<T5Chunk> &chunks() const { return chunks_; }
  const IndexArray<int64_t> &order() const { return order_; }
  bool adopt(const DocumentSource &documents, const T5SpecialIds &ids,
             const T5SampleOptions &options, IndexArray<T5Chunk> chunks, IndexArray<int64_t> order,
             std::string &error);
  /// The i-th sample served (0 <= i < numSamples()).
  void sample(int64_t i, T5Sample &out) const;
  /// The longest chunk that fits, R above.
  int64_t chunkLength() const { return chunk_; }

  /// Noise tokens and spans of a chunk of `n` tokens.
  static void noiseShape(int64_t n, const T5SampleOptions &options, int64_t &noise, int64_t &spans);

private:
  /// The longest chunk whose corrupted form fits (0 when none does).
  static int64_t longestChunk(const T5SpecialIds &ids, const T5SampleOptions &options);
  const DocumentSource *documents_ = nullptr;
  T5SpecialIds ids_;
  T5SampleOptions options_;
  IndexArray<T5Chunk> chunks_;
  IndexArray<int64_t> order_; // indices into chunks_, epoch after epoch
  int64_t chunk_ = 0;
};

} // namespace mt

#endif // MT_DATA_T5DATASET_H
