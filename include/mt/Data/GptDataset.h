//===- GptDataset.h - GPT training samples from documents ------*- C++ -*-===//
//
// How Megatron's GPTDataset turns documents into samples, with a portable
// shuffle:
//   1. split: the documents are cut, in order, into train / valid / test
//      ranges by weights such as "949,50,1" (Megatron's rounding, below);
//   2. each epoch puts the split's documents in a shuffled order and
//      concatenates their tokens into one stream (documents already end in
//      the end-of-text token when preprocessed with --append-eod; raw text
//      from tokenizeTextFile does too);
//   3. sample k is the window of seq_length + 1 tokens starting at token
//      k * seq_length of the stream (consecutive windows share one token);
//      tokens = window[:-1], labels = window[1:];
//   4. samples are served in a shuffled order.
// Shuffles use SplitMix64 (Shuffle.h): epoch e's document order draws from
// stream e + 1 of the seed, the sample order from stream 0. So the samples are
// the same on every machine, but not the ones Megatron's NumPy shuffle picks.
// Megatron's separate handling of a partial last epoch is not reproduced:
// every epoch is whole.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_GPTDATASET_H
#define MT_DATA_GPTDATASET_H

#include "mt/Data/IndexArray.h"
#include "mt/Data/IndexedDataset.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// Where documents' tokens come from.
class DocumentSource {
public:
  virtual ~DocumentSource() = default;
  virtual int64_t numDocuments() const = 0;
  virtual int64_t documentLength(int64_t document) const = 0;
  /// Copies `count` tokens of the document from `offset` on.
  virtual void copyTokens(int64_t document, int64_t offset, int64_t count, int32_t *out) const = 0;
};

/// Documents held in memory (e.g. from tokenizeTextFile).
class InMemoryDocuments : public DocumentSource {
public:
  explicit InMemoryDocuments(std::vector<std::vector<int32_t>> documents)
      : documents_(std::move(documents)) {}
  int64_t numDocuments() const override { return static_cast<int64_t>(documents_.size()); }
  int64_t documentLength(int64_t document) const override {
    return static_cast<int64_t>(documents_[document].size());
  }
  void copyTokens(int64_t document, int64_t offset, int64_t count, int32_t *out) const override;

private:
  std::vector<std::vector<int32_t>> documents_;
};

/// The documents of an indexed dataset: each is its sequences, in order.
class IndexedDocuments : public DocumentSource {
public:
  /// Fails for dtypes whose values need not fit int32 (int64, floats).
  bool init(const IndexedDataset &dataset, std::string &error);
  int64_t numDocuments() const override { return dataset_->numDocuments(); }
  int64_t documentLength(int64_t document) const override { return lengths_[document]; }
  void copyTokens(int64_t document, int64_t offset, int64_t count, int32_t *out) const override;

private:
  const IndexedDataset *dataset_ = nullptr;
  std::vector<int64_t> lengths_;
};

enum class Split { Train = 0, Valid = 1, Test = 2 };
const char *splitName(Split split);

/// Parses Megatron's --split: one to three non-negative numbers separated by
/// commas ("949,50,1", "98,2", "1"), missing ones 0, normalized to sum 1.
bool parseSplit(const std::string &text, std::array<double, 3> &weights, std::string &error);

/// Megatron's document bounds: bounds[i] .. bounds[i+1] is split i. Each
/// split gets round(weight * numDocuments) documents (round half to even, as
/// Python's round), then all bounds shift so the last is numDocuments.
std::array<int64_t, 4> splitBounds(const std::array<double, 3> &weights, int64_t numDocuments);

struct GptSampleOptions {
  int64_t seqLength = 1024;
  uint64_t seed = 1234;
  int64_t numEpochs = 1;
  /// Megatron's --eod-mask-loss: no loss where the input token is end-of-text
  /// (the prediction of the next document's first token from nothing).
  bool eodMaskLoss = false;
  int32_t endOfText = 50256;
};

struct GptSample {
  std::vector<int32_t> tokens; // seqLength
  std::vector<int32_t> labels; // seqLength: tokens shifted left by one
  std::vector<float> lossMask; // seqLength: 1, or 0 where tokens[i] is end-of-text and eodMaskLoss
};

/// What build() makes: the documents in stream order (all epochs), where
/// each starts in the stream (one extra at the end), and the shuffled order
/// of the samples. A cache (IndexCache.h) saves and maps them.
struct GptIndex {
  int64_t tokensPerEpoch = 0;
  IndexArray<int64_t> documentOrder, streamStart, sampleOrder;
};

class GptDataset {
public:
  /// Builds the sample index over documents [begin, end) of `source`, which
  /// must outlive this object.
  bool build(const DocumentSource &source, int64_t begin, int64_t end,
             const GptSampleOptions &options, std::string &error);

  /// Serves `index` (built before for the same documents and options, and
  /// checked here for consistency) instead of building it.
  bool adopt(const DocumentSource &source, const GptSampleOptions &options, GptIndex index,
             std::string &error);
  const GptIndex &index() const { return index_; }

  /// The epochs that cover `wanted` samples of documents [begin, end): one,
  /// or enough and one more (as Megatron lays them out).
  static int64_t epochsFor(const DocumentSource &source, int64_t begin, int64_t end,
                           int64_t seqLength, int64_t wanted);

  /// (numEpochs * tokens - 1) / seqLength: every window has seqLength + 1 tokens.
  int64_t numSamples() const { return static_cast<int64_t>(index_.sampleOrder.size()); }
  int64_t tokensPerEpoch() const { return index_.tokensPerEpoch; }
  /// The i-th sample served (0 <= i < numSamples()).
  void sample(int64_t i, GptSample &out) const;
  /// Where the i-th sample served starts in the token stream.
  int64_t sampleStart(int64_t i) const { return index_.sampleOrder[i] * options_.seqLength; }
  /// The documents in stream order (all epochs).
  std::vector<int64_t> documentOrder() const { return index_.documentOrder.toVector(); }

private:
  const DocumentSource *source_ = nullptr;
  GptSampleOptions options_;
  GptIndex index_;
};

} // namespace mt

#endif // MT_DATA_GPTDATASET_H
