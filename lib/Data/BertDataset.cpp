//===- BertDataset.cpp - BERT pre-training samples from sentences ----------===//
#include "mt/Data/BertDataset.h"

#include <algorithm>
#include <cmath>

namespace mt {

namespace {

/// Megatron skips documents with a sentence longer than this.
constexpr int64_t kLongSentence = 512;

double uniform(SplitMix64 &rng) { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; }

/// Whole words: a "##" continuation joins the token right before it.
std::vector<std::vector<int64_t>> wordGroups(const std::vector<int32_t> &tokens,
                                             const BertSpecialIds &ids) {
  std::vector<std::vector<int64_t>> groups;
  for (size_t i = 0; i < tokens.size(); ++i) {
    int32_t t = tokens[i];
    if (t == ids.cls || t == ids.sep)
      continue;
    bool continues = static_cast<size_t>(t) < ids.isContinuation.size() && ids.isContinuation[t];
    if (continues && !groups.empty() && groups.back().back() == static_cast<int64_t>(i) - 1)
      groups.back().push_back(static_cast<int64_t>(i));
    else
      groups.push_back({static_cast<int64_t>(i)});
  }
  return groups;
}

/// Masks n-grams of whole words as Megatron's create_masked_lm_predictions.
void maskTokens(BertSample &s, int64_t real, int64_t target, const BertSpecialIds &ids,
                const BertSampleOptions &o, SplitMix64 &rng) {
  std::vector<int32_t> original(s.tokens.begin(), s.tokens.begin() + real);
  std::vector<std::vector<int64_t>> groups = wordGroups(original, ids);
  // At least one, where Megatron's short samples may get none: a
  // micro-batch without a masked token would have no masked-LM loss.
  double limit = std::max(1.0, std::min(o.maskedLmProb * static_cast<double>(target),
                                        std::round(static_cast<double>(real) * o.maskedLmProb)));
  std::vector<int64_t> starts(groups.size());
  for (size_t g = 0; g < groups.size(); ++g)
    starts[g] = static_cast<int64_t>(g);
  shuffle(starts, rng);
  std::vector<bool> covered(static_cast<size_t>(real), false);
  int64_t masked = 0;
  for (int64_t g : starts) {
    if (static_cast<double>(masked) >= limit)
      break;
    // n words with probability proportional to 1/n.
    double total = 0;
    for (int64_t n = 1; n <= o.maxNgram; ++n)
      total += 1.0 / static_cast<double>(n);
    double u = uniform(rng) * total;
    int64_t n = 1;
    for (double acc = 1.0; n < o.maxNgram && u >= acc; ++n)
      acc += 1.0 / static_cast<double>(n + 1);
    std::vector<int64_t> positions;
    for (; n > 0; --n) {
      positions.clear();
      for (int64_t k = g; k < std::min<int64_t>(g + n, static_cast<int64_t>(groups.size())); ++k)
        positions.insert(positions.end(), groups[k].begin(), groups[k].end());
      if (static_cast<double>(masked + static_cast<int64_t>(positions.size())) <= limit)
        break;
    }
    if (n == 0 || std::any_of(positions.begin(), positions.end(),
                              [&](int64_t p) { return covered[static_cast<size_t>(p)]; }))
      continue;
    for (int64_t p : positions) {
      covered[static_cast<size_t>(p)] = true;
      int32_t &token = s.tokens[static_cast<size_t>(p)];
      s.labels[static_cast<size_t>(p)] = token;
      s.lossMask[static_cast<size_t>(p)] = 1;
      if (uniform(rng) < 0.8)
        token = ids.mask;
      else if (uniform(rng) >= 0.5)
        token = static_cast<int32_t>(rng.below(static_cast<uint64_t>(ids.vocabSize)));
      ++masked;
    }
  }
}

} // namespace

bool BertDataset::build(const IndexedDataset &dataset, int64_t begin, int64_t end,
                        const BertSpecialIds &ids, const BertSampleOptions &options,
                        std::string &error) {
  if (options.seqLength < 5) {
    error = "a BERT sample of " + std::to_string(options.seqLength) +
            " tokens cannot hold [CLS] A [SEP] B [SEP]: use --seq-length >= 5";
    return false;
  }
  for (int32_t id : {ids.pad, ids.cls, ids.sep, ids.mask})
    if (id < 0 || id >= ids.vocabSize) {
      error = "special token id " + std::to_string(id) + " is outside the vocabulary of " +
              std::to_string(ids.vocabSize);
      return false;
    }
  dataset_ = &dataset;
  ids_ = ids;
  options_ = options;
  std::vector<BertRun> runs;
  skippedDocuments_ = 0;
  SplitMix64 rng(options.seed, 1);
  for (int64_t epoch = 0; epoch < options.numEpochs; ++epoch) {
    int64_t skipped = skippedDocuments_;
    for (int64_t d = begin; d < end; ++d)
      addRuns(d, rng, runs);
    if (epoch > 0)
      skippedDocuments_ = skipped; // count each document once
  }
  // Serve the runs in a shuffled order.
  std::vector<int64_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int64_t>(i);
  SplitMix64 orderRng(options.seed, 0);
  shuffle(order, orderRng);
  std::vector<BertRun> &shuffled = runs_.build();
  shuffled.clear();
  shuffled.reserve(runs.size());
  for (int64_t i : order)
    shuffled.push_back(runs[static_cast<size_t>(i)]);
  return true;
}

bool BertDataset::adopt(const IndexedDataset &dataset, const BertSpecialIds &ids,
                        const BertSampleOptions &options, IndexArray<BertRun> runs, int64_t skipped,
                        std::string &error) {
  for (const BertRun &run : runs)
    if (run.firstSentence < 0 || run.numSentences < 2 ||
        run.firstSentence > dataset.numSequences() - run.numSentences || run.target < 2 ||
        run.target > options.seqLength - 3) {
      error = "the cached BERT index does not fit the dataset's sentences";
      return false;
    }
  dataset_ = &dataset;
  ids_ = ids;
  options_ = options;
  runs_ = std::move(runs);
  skippedDocuments_ = skipped;
  return true;
}

void BertDataset::addRuns(int64_t document, SplitMix64 &rng, std::vector<BertRun> &runs) {
  int64_t first = dataset_->documentIndex(document), last = dataset_->documentIndex(document + 1);
  bool longSentence = false;
  for (int64_t s = first; s < last; ++s)
    longSentence = longSentence || dataset_->sequenceLength(s) > kLongSentence;
  if (last - first < 2 || longSentence) {
    ++skippedDocuments_;
    return;
  }
  int64_t most = options_.seqLength - 3;
  auto target = [&] {
    return uniform(rng) < options_.shortSeqProb
               ? 2 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(most - 1)))
               : most;
  };
  int64_t goal = target(), start = first, length = 0, count = 0;
  for (int64_t s = first; s < last; ++s) {
    length += dataset_->sequenceLength(s);
    ++count;
    int64_t remaining = last - s - 1;
    if ((length >= goal && remaining > 1 && count >= 2) || remaining == 0) {
      if (count >= 2)
        runs.push_back({start, count, goal});
      start = s + 1;
      length = count = 0;
      goal = target();
    }
  }
}

void BertDataset::sample(int64_t i, BertSample &out) const {
  const BertRun &run = runs_[static_cast<size_t>(i)];
  SplitMix64 rng(options_.seed, static_cast<uint64_t>(i) + 2);
  // A: the first k sentences, B: the rest; swapped with probability 1/2.
  int64_t k = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(run.numSentences - 1)));
  std::vector<int32_t> a, b, piece;
  for (int64_t s = 0; s < run.numSentences; ++s) {
    int64_t seq = run.firstSentence + s;
    piece.resize(static_cast<size_t>(dataset_->sequenceLength(seq)));
    dataset_->copyTokens(seq, 0, static_cast<int64_t>(piece.size()), piece.data());
    (s < k ? a : b).insert((s < k ? a : b).end(), piece.begin(), piece.end());
  }
  out.sentenceOrder = uniform(rng) < 0.5 ? 1 : 0;
  if (out.sentenceOrder)
    std::swap(a, b);
  // The longer segment (B on ties) loses its first or last token.
  while (static_cast<int64_t>(a.size() + b.size()) > run.target) {
    std::vector<int32_t> &longer = a.size() > b.size() ? a : b;
    if (uniform(rng) < 0.5)
      longer.erase(longer.begin());
    else
      longer.pop_back();
  }
  int64_t seq = options_.seqLength;
  out.tokens.assign(1, ids_.cls);
  out.tokens.insert(out.tokens.end(), a.begin(), a.end());
  out.tokens.push_back(ids_.sep);
  int64_t segmentB = static_cast<int64_t>(out.tokens.size());
  out.tokens.insert(out.tokens.end(), b.begin(), b.end());
  out.tokens.push_back(ids_.sep);
  int64_t real = static_cast<int64_t>(out.tokens.size());
  out.tokens.resize(static_cast<size_t>(seq), ids_.pad);
  out.tokenTypes.assign(static_cast<size_t>(seq), 0);
  out.paddingMask.assign(static_cast<size_t>(seq), 0);
  for (int64_t p = 0; p < real; ++p) {
    out.tokenTypes[static_cast<size_t>(p)] = p >= segmentB ? 1 : 0;
    out.paddingMask[static_cast<size_t>(p)] = 1;
  }
  out.labels.assign(static_cast<size_t>(seq), 0);
  out.lossMask.assign(static_cast<size_t>(seq), 0.0f);
  maskTokens(out, real, run.target, ids_, options_, rng);
}

} // namespace mt
