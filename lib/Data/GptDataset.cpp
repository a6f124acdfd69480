//===- GptDataset.cpp - GPT training samples from documents ----------------===//
#include "mt/Data/GptDataset.h"

#include "mt/Data/Shuffle.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace mt {

void InMemoryDocuments::copyTokens(int64_t document, int64_t offset, int64_t count,
                                   int32_t *out) const {
  std::memcpy(out, documents_[document].data() + offset, sizeof(int32_t) * count);
}

bool IndexedDocuments::init(const IndexedDataset &dataset, std::string &error) {
  switch (dataset.dtype()) {
  case TokenDType::Int64:
  case TokenDType::Float32:
  case TokenDType::Float64:
    error = std::string("GPT samples need integer token ids that fit int32; this dataset holds ") +
            tokenDTypeName(dataset.dtype());
    return false;
  default:
    break;
  }
  dataset_ = &dataset;
  lengths_.assign(dataset.numDocuments(), 0);
  for (int64_t d = 0; d < dataset.numDocuments(); ++d)
    for (int64_t s = dataset.documentIndex(d); s < dataset.documentIndex(d + 1); ++s)
      lengths_[d] += dataset.sequenceLength(s);
  return true;
}

void IndexedDocuments::copyTokens(int64_t document, int64_t offset, int64_t count,
                                  int32_t *out) const {
  for (int64_t s = dataset_->documentIndex(document);
       count > 0 && s < dataset_->documentIndex(document + 1); ++s) {
    int64_t length = dataset_->sequenceLength(s);
    if (offset >= length) {
      offset -= length;
      continue;
    }
    int64_t take = std::min(count, length - offset);
    dataset_->copyTokens(s, offset, take, out);
    out += take;
    count -= take;
    offset = 0;
  }
}

const char *splitName(Split split) {
  switch (split) {
  case Split::Train:
    return "train";
  case Split::Valid:
    return "valid";
  case Split::Test:
    return "test";
  }
  return "?";
}

bool parseSplit(const std::string &text, std::array<double, 3> &weights, std::string &error) {
  auto fail = [&](const std::string &message) {
    error =
        "bad split '" + text + "': " + message + " (expected up to three weights, e.g. 949,50,1)";
    return false;
  };
  std::vector<double> values;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
    item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (item.empty())
      return fail("empty weight");
    bool digits = false, dot = false;
    for (char c : item) {
      if (c >= '0' && c <= '9')
        digits = true;
      else if (c == '.' && !dot)
        dot = true;
      else
        return fail("'" + item + "' is not a non-negative number");
    }
    if (!digits)
      return fail("'" + item + "' is not a non-negative number");
    values.push_back(std::strtod(item.c_str(), nullptr));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (values.size() > 3)
    return fail(std::to_string(values.size()) + " weights");
  values.resize(3, 0.0);
  double sum = (values[0] + values[1]) + values[2];
  if (!(sum > 0) || !std::isfinite(sum))
    return fail("the weights must add up to more than 0");
  for (int i = 0; i < 3; ++i)
    weights[i] = values[i] / sum;
  return true;
}

std::array<int64_t, 4> splitBounds(const std::array<double, 3> &weights, int64_t numDocuments) {
  std::array<int64_t, 4> bounds{0, 0, 0, 0};
  for (int i = 0; i < 3; ++i) // nearbyint rounds half to even, like Python's round
    bounds[i + 1] = bounds[i] + static_cast<int64_t>(
                                    std::nearbyint(weights[i] * static_cast<double>(numDocuments)));
  int64_t excess = bounds[3] - numDocuments;
  for (int i = 1; i < 4; ++i)
    // Megatron can shift the first bound below 0 (e.g. 0,1,1 over 3
    // documents); clamping keeps every range inside the documents.
    bounds[i] = std::max<int64_t>(0, bounds[i] - excess);
  return bounds;
}

bool GptDataset::build(const DocumentSource &source, int64_t begin, int64_t end,
                       const GptSampleOptions &options, std::string &error) {
  if (options.seqLength < 1) {
    error = "sequence length must be at least 1, got " + std::to_string(options.seqLength);
    return false;
  }
  if (options.numEpochs < 1) {
    error = "number of epochs must be at least 1, got " + std::to_string(options.numEpochs);
    return false;
  }
  if (begin < 0 || begin > end || end > source.numDocuments()) {
    error = "document range [" + std::to_string(begin) + ", " + std::to_string(end) +
            ") is not within the " + std::to_string(source.numDocuments()) + " documents";
    return false;
  }
  source_ = &source;
  options_ = options;

  int64_t tokensPerEpoch = 0;
  for (int64_t d = begin; d < end; ++d)
    tokensPerEpoch += source.documentLength(d);
  if (tokensPerEpoch > 0 &&
      options.numEpochs > std::numeric_limits<int64_t>::max() / tokensPerEpoch) {
    error = std::to_string(options.numEpochs) + " epochs of " + std::to_string(tokensPerEpoch) +
            " tokens overflow a 64-bit count";
    return false;
  }
  index_.tokensPerEpoch = tokensPerEpoch;

  std::vector<int64_t> &documentOrder = index_.documentOrder.build();
  documentOrder.clear();
  documentOrder.reserve((end - begin) * options.numEpochs);
  for (int64_t epoch = 0; epoch < options.numEpochs; ++epoch) {
    std::vector<int64_t> order(end - begin);
    for (int64_t d = begin; d < end; ++d)
      order[d - begin] = d;
    SplitMix64 rng(options.seed, static_cast<uint64_t>(epoch) + 1);
    shuffle(order, rng);
    documentOrder.insert(documentOrder.end(), order.begin(), order.end());
  }
  std::vector<int64_t> &streamStart = index_.streamStart.build();
  streamStart.assign(documentOrder.size() + 1, 0);
  for (size_t j = 0; j < documentOrder.size(); ++j)
    streamStart[j + 1] = streamStart[j] + source.documentLength(documentOrder[j]);

  int64_t totalTokens = streamStart.back();
  int64_t numSamples = totalTokens > 0 ? (totalTokens - 1) / options.seqLength : 0;
  std::vector<int64_t> &sampleOrder = index_.sampleOrder.build();
  sampleOrder.resize(numSamples);
  for (int64_t k = 0; k < numSamples; ++k)
    sampleOrder[k] = k;
  SplitMix64 rng(options.seed, 0);
  shuffle(sampleOrder, rng);
  return true;
}

int64_t GptDataset::epochsFor(const DocumentSource &source, int64_t begin, int64_t end,
                              int64_t seqLength, int64_t wanted) {
  int64_t tokens = 0;
  for (int64_t d = begin; d < end; ++d)
    tokens += source.documentLength(d);
  int64_t perEpoch = tokens > 0 ? (tokens - 1) / seqLength : 0;
  return wanted > perEpoch && perEpoch > 0 ? (wanted + perEpoch - 1) / perEpoch + 1 : 1;
}

bool GptDataset::adopt(const DocumentSource &source, const GptSampleOptions &options,
                       GptIndex index, std::string &error) {
  // The cache's checksum and key vouch for the contents; these checks
  // catch an index that cannot belong to these documents at all.
  const IndexArray<int64_t> &order = index.documentOrder, &starts = index.streamStart;
  bool fits = starts.size() == order.size() + 1 && !starts.empty() && starts[0] == 0 &&
              options.seqLength >= 1 &&
              static_cast<int64_t>(index.sampleOrder.size()) ==
                  (starts.back() > 0 ? (starts.back() - 1) / options.seqLength : 0);
  for (size_t j = 0; fits && j < order.size(); ++j)
    fits = order[j] >= 0 && order[j] < source.numDocuments() &&
           starts[j + 1] - starts[j] == source.documentLength(order[j]);
  int64_t samples = static_cast<int64_t>(index.sampleOrder.size());
  for (int64_t k : index.sampleOrder)
    fits = fits && k >= 0 && k < samples;
  if (!fits) {
    error = "the cached sample index does not fit the dataset's documents";
    return false;
  }
  source_ = &source;
  options_ = options;
  index_ = std::move(index);
  return true;
}

void GptDataset::sample(int64_t i, GptSample &out) const {
  const int64_t seqLength = options_.seqLength;
  std::vector<int32_t> window(seqLength + 1);
  int64_t position = sampleStart(i);
  // The last document starting at or before `position` (empty ones share
  // their start with the next, and upper_bound skips past them).
  const IndexArray<int64_t> &streamStart = index_.streamStart;
  size_t j =
      std::upper_bound(streamStart.begin(), streamStart.end(), position) - streamStart.begin() - 1;
  int64_t filled = 0;
  while (filled < seqLength + 1) {
    int64_t offset = position + filled - streamStart[j];
    int64_t length = streamStart[j + 1] - streamStart[j];
    int64_t take = std::min(seqLength + 1 - filled, length - offset);
    if (take > 0) {
      source_->copyTokens(index_.documentOrder[j], offset, take, window.data() + filled);
      filled += take;
    }
    ++j;
  }
  out.tokens.assign(window.begin(), window.end() - 1);
  out.labels.assign(window.begin() + 1, window.end());
  out.lossMask.assign(seqLength, 1.0f);
  if (options_.eodMaskLoss)
    for (int64_t k = 0; k < seqLength; ++k)
      if (out.tokens[k] == options_.endOfText)
        out.lossMask[k] = 0.0f;
}

} // namespace mt
