//===- BertDataset.h - BERT pre-training samples from sentences -*- C++ -*-===//
//
// How Megatron-LM's BertDataset turns sentence-split documents (an indexed
// dataset made with --split-sentences: each document is its sentences, one
// sequence each) into samples, with our portable generator:
//   1. the split's documents, epoch after epoch, are cut into runs of whole
//      sentences: a run ends when it reaches the target length (seq - 3
//      tokens, or with probability shortSeqProb a random length in
//      [2, seq - 3]) with at least two sentences left in the document, or at
//      the document's end. Runs of one sentence are dropped, as are documents
//      of fewer than two sentences or with a sentence over 512 tokens;
//   2. sample i (a run, in a shuffled order) splits its sentences into A = the
//      first k (k uniform in [1, n-1]) and B = the rest; with probability 1/2
//      they are swapped (the sentence-order label is 1); the longer segment
//      (B on ties) loses its first or last token (a coin) until both fit in
//      seq - 3 tokens; the sample is [CLS] A [SEP] B [SEP], token types 0
//      through the first [SEP] and 1 after, padded with [PAD];
//   3. masking: whole words (a "##" continuation joins the token before)
//      in n-grams of 1-3 words (probability proportional to 1/n), up to
//      max(1, min(0.15 * target, round(0.15 * real tokens))) tokens (Megatron
//      can mask none in a short sample; we mask at least one);
//      each chosen token becomes [MASK] (80%), stays (10%) or becomes a
//      uniformly drawn vocabulary id (10%); the labels are the original ids
//      and the loss mask is 1 exactly there.
// Every draw of sample i comes from a generator seeded by (seed, i), so a
// sample does not depend on which others were drawn. Megatron uses NumPy's
// generators, so the samples are built the same way but are not the same.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_BERTDATASET_H
#define MT_DATA_BERTDATASET_H

#include "mt/Data/IndexArray.h"
#include "mt/Data/IndexedDataset.h"
#include "mt/Data/Shuffle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

struct BertSpecialIds {
  int32_t pad = 0, cls = 2, sep = 3, mask = 4;
  int32_t vocabSize = 0;
  /// isContinuation[id]: the token starts with "##" (empty: none do).
  std::vector<bool> isContinuation;
};

struct BertSampleOptions {
  int64_t seqLength = 512;
  uint64_t seed = 1234;
  int64_t numEpochs = 1;
  double maskedLmProb = 0.15;
  double shortSeqProb = 0.1;
  int64_t maxNgram = 3;
};

struct BertSample {
  std::vector<int32_t> tokens, tokenTypes, paddingMask; // seqLength each
  std::vector<int32_t> labels;                          // the original id where masked, else 0
  std::vector<float> lossMask;                          // 1 where masked
  int32_t sentenceOrder = 0;                            // 1: A and B were swapped
};

/// A sample's sentences: `numSentences` from `firstSentence`, cut to
/// `target` tokens.
struct BertRun {
  int64_t firstSentence, numSentences, target;
};

class BertDataset {
public:
  /// Builds the runs of documents [begin, end) of `dataset` (which must
  /// outlive this object).
  bool build(const IndexedDataset &dataset, int64_t begin, int64_t end, const BertSpecialIds &ids,
             const BertSampleOptions &options, std::string &error);
  int64_t numSamples() const { return static_cast<int64_t>(runs_.size()); }
  /// The runs in serving order, to cache (IndexCache.h); adopt() serves a
  /// cached copy after checking it fits the dataset.
  const IndexArray<BertRun> &runs() const { return runs_; }
  bool adopt(const IndexedDataset &dataset, const BertSpecialIds &ids,
             const BertSampleOptions &options, IndexArray<BertRun> runs, int64_t skipped,
             std::string &error);
  /// The i-th sample served (0 <= i < numSamples()).
  void sample(int64_t i, BertSample &out) const;
  /// Documents the runs skip (fewer than two sentences, or a long one).
  int64_t skippedDocuments() const { return skippedDocuments_; }

private:
  void addRuns(int64_t document, SplitMix64 &rng, std::vector<BertRun> &runs);
  const IndexedDataset *dataset_ = nullptr;
  BertSpecialIds ids_;
  BertSampleOptions options_;
  IndexArray<BertRun> runs_;
  int64_t skippedDocuments_ = 0;
};

} // namespace mt

#endif // MT_DATA_BERTDATASET_H
