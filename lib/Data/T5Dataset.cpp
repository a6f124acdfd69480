//===- T5Dataset.cpp - T5 span-corruption samples -------------------------===//
#include "mt/Data/T5Dataset.h"

#include "mt/Data/Shuffle.h"

#include <algorithm>
#include <cmath>

namespace mt {

namespace {

/// `total` items split into `parts` non-empty runs, uniformly among all
/// compositions: parts - 1 distinct cut points among the total - 1 gaps.
std::vector<int64_t> randomComposition(int64_t total, int64_t parts, SplitMix64 &rng) {
  std::vector<int64_t> gaps(static_cast<size_t>(total - 1));
  for (size_t g = 0; g < gaps.size(); ++g)
    gaps[g] = static_cast<int64_t>(g) < parts - 1 ? 1 : 0;
  shuffle(gaps, rng);
  std::vector<int64_t> lengths(static_cast<size_t>(parts), 0);
  size_t part = 0;
  lengths[0] = 1;
  for (int64_t cut : gaps) {
    part += static_cast<size_t>(cut);
    ++lengths[part];
  }
  return lengths;
}

} // namespace

void T5Dataset::noiseShape(int64_t n, const T5SampleOptions &options, int64_t &noise,
                           int64_t &spans) {
  noise =
      std::clamp<int64_t>(std::llround(static_cast<double>(n) * options.noiseDensity), 1, n - 1);
  spans = std::max<int64_t>(1, std::llround(static_cast<double>(noise) / options.meanSpanLength));
  spans = std::min(spans, n - noise);
}

int64_t T5Dataset::longestChunk(const T5SpecialIds &ids, const T5SampleOptions &options) {
  // The longest chunk whose encoder (clean tokens, a sentinel per span,
  // </s>) and decoder (a sentinel per span, the noise, </s>) sequences fit.
  int64_t longest = 0;
  for (int64_t n = 2; n <= options.encoderLength * 2; ++n) {
    int64_t noise, spans;
    noiseShape(n, options, noise, spans);
    if (n - noise + spans + 1 > options.encoderLength || noise + spans + 1 > options.decoderLength)
      break;
    if (spans > ids.numSentinels)
      break;
    longest = n;
  }
  return longest;
}

bool T5Dataset::build(const DocumentSource &documents, int64_t begin, int64_t end,
                      const T5SpecialIds &ids, const T5SampleOptions &options, std::string &error) {
  documents_ = &documents;
  ids_ = ids;
  options_ = options;
  std::vector<T5Chunk> &chunks = chunks_.build();
  std::vector<int64_t> &order = order_.build();
  chunks.clear();
  order.clear();
  chunk_ = longestChunk(ids, options);
  if (chunk_ < 2) {
    error = "T5 samples need an encoder of at least 3 and a decoder of at least 3 tokens, got " +
            std::to_string(options.encoderLength) + " and " + std::to_string(options.decoderLength);
    return false;
  }
  int32_t token = 0;
  for (int64_t d = begin; d < end; ++d) {
    int64_t first = 0, length = documents.documentLength(d);
    if (length > 0 && ids.bos >= 0) {
      documents.copyTokens(d, 0, 1, &token);
      first += token == ids.bos;
    }
    if (length > first) {
      documents.copyTokens(d, length - 1, 1, &token);
      length -= token == ids.eos;
    }
    for (int64_t at = first; length - at >= 2; at += chunk_)
      chunks.push_back({d, at, std::min(chunk_, length - at)});
  }
  SplitMix64 rng(options.seed, /*stream=*/0);
  for (int64_t epoch = 0; epoch < options.numEpochs; ++epoch) {
    std::vector<int64_t> epochOrder(chunks.size());
    for (size_t i = 0; i < epochOrder.size(); ++i)
      epochOrder[i] = static_cast<int64_t>(i);
    shuffle(epochOrder, rng);
    order.insert(order.end(), epochOrder.begin(), epochOrder.end());
  }
  return true;
}

bool T5Dataset::adopt(const DocumentSource &documents, const T5SpecialIds &ids,
                      const T5SampleOptions &options, IndexArray<T5Chunk> chunks,
                      IndexArray<int64_t> order, std::string &error) {
  int64_t longest = longestChunk(ids, options);
  bool fits = longest >= 2;
  for (const T5Chunk &c : chunks)
    fits = fits && c.document >= 0 && c.document < documents.numDocuments() && c.offset >= 0 &&
           c.length >= 2 && c.length <= longest &&
           c.offset <= documents.documentLength(c.document) - c.length;
  for (int64_t k : order)
    fits = fits && k >= 0 && k < static_cast<int64_t>(chunks.size());
  if (!fits) {
    error = "the cached T5 index does not fit the dataset's documents";
    return false;
  }
  documents_ = &documents;
  ids_ = ids;
  options_ = options;
  chunk_ = longest;
  chunks_ = std::move(chunks);
  order_ = std::move(order);
  return true;
}

void T5Dataset::sample(int64_t i, T5Sample &out) const {
  const T5Chunk &c = chunks_[static_cast<size_t>(order_[static_cast<size_t>(i)])];
  std::vector<int32_t> tokens(static_cast<size_t>(c.length));
  documents_->copyTokens(c.document, c.offset, c.length, tokens.data());
  int64_t noise, spans;
  noiseShape(c.length, options_, noise, spans);
  SplitMix64 rng(options_.seed, /*stream=*/static_cast<uint64_t>(i) + 1);
  std::vector<int64_t> noiseRuns = randomComposition(noise, spans, rng);
  std::vector<int64_t> cleanRuns = randomComposition(c.length - noise, spans, rng);

  size_t se = static_cast<size_t>(options_.encoderLength);
  size_t sd = static_cast<size_t>(options_.decoderLength);
  out.encoderTokens.assign(se, ids_.pad);
  out.paddingMask.assign(se, 0);
  out.labels.assign(sd, ids_.pad);
  out.decoderTokens.assign(sd, ids_.pad);
  out.lossMask.assign(sd, 0.0f);
  size_t e = 0, l = 0, at = 0;
  for (int64_t s = 0; s < spans; ++s) {
    for (int64_t k = 0; k < cleanRuns[static_cast<size_t>(s)]; ++k)
      out.encoderTokens[e++] = tokens[at++];
    int32_t sentinel = ids_.firstSentinel + static_cast<int32_t>(s);
    out.encoderTokens[e++] = sentinel;
    out.labels[l++] = sentinel;
    for (int64_t k = 0; k < noiseRuns[static_cast<size_t>(s)]; ++k)
      out.labels[l++] = tokens[at++];
  }
  out.encoderTokens[e++] = ids_.eos;
  out.labels[l++] = ids_.eos;
  std::fill(out.paddingMask.begin(), out.paddingMask.begin() + static_cast<long>(e), 1);
  std::fill(out.lossMask.begin(), out.lossMask.begin() + static_cast<long>(l), 1.0f);
  out.decoderTokens[0] = ids_.decoderStart;
  std::copy(out.labels.begin(), out.labels.begin() + static_cast<long>(l - 1),
            out.decoderTokens.begin() + 1);
}

} // namespace mt
