//===- DataBlend.cpp - datasets mixed by weight ----------------------------===//
#include "mt/Data/DataBlend.h"

#include "mt/Data/Files.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace mt {

namespace {

/// A weight: a finite non-negative decimal number, the whole word.
bool parseWeight(const std::string &word, double &weight) {
  if (word.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  weight = std::strtod(word.c_str(), &end);
  return *end == '\0' && errno != ERANGE && std::isfinite(weight) && weight >= 0 &&
         word.find_first_of("xXpPnN") == std::string::npos; // no hex, inf or nan
}

} // namespace

std::vector<double> normalizeWeights(const std::vector<double> &weights) {
  double sum = 0;
  for (double w : weights)
    sum += w;
  std::vector<double> normalized;
  normalized.reserve(weights.size());
  for (double w : weights)
    normalized.push_back(w / sum);
  return normalized;
}

bool parseDataBlend(const std::vector<std::string> &words, DataBlend &blend, std::string &error) {
  blend = DataBlend();
  if (words.empty()) {
    error = "no dataset given";
    return false;
  }
  double first = 0;
  bool weighted = words.size() > 1 && parseWeight(words[0], first);
  if (!weighted) {
    for (const std::string &word : words) {
      double ignored;
      if (words.size() > 1 && parseWeight(word, ignored)) {
        error = "'" + word +
                "' looks like a weight, but the first word is not one: give weights "
                "before every dataset (W1 PATH1 W2 PATH2 ...) or none";
        return false;
      }
    }
    blend.prefixes = words;
    return true;
  }
  if (words.size() % 2) {
    error = "a weighted blend is pairs of a weight and a dataset (W1 PATH1 W2 PATH2 ...); '" +
            words.back() + "' has no partner";
    return false;
  }
  std::vector<double> weights;
  double sum = 0;
  for (size_t i = 0; i < words.size(); i += 2) {
    double w = 0;
    if (!parseWeight(words[i], w)) {
      error = "'" + words[i] + "' (word " + std::to_string(i + 1) +
              ") is not a weight: a non-negative number before each dataset";
      return false;
    }
    double ignored;
    if (parseWeight(words[i + 1], ignored) && words[i + 1].find('/') == std::string::npos) {
      error = "'" + words[i + 1] + "' (word " + std::to_string(i + 2) +
              ") should be a dataset but reads as a number: give W1 PATH1 W2 PATH2 ...";
      return false;
    }
    weights.push_back(w);
    blend.prefixes.push_back(words[i + 1]);
    sum += w;
  }
  if (!(sum > 0) || !std::isfinite(sum)) {
    error =
        "the blend's weights add up to " + std::to_string(sum) + ": at least one must be positive";
    return false;
  }
  blend.weights = normalizeWeights(weights);
  return true;
}

bool readDataBlendWords(const std::string &path, std::vector<std::string> &words,
                        std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  std::istringstream in(text);
  std::string word;
  while (in >> word)
    words.push_back(word);
  if (words.empty()) {
    error = "'" + path + "' names no dataset";
    return false;
  }
  return true;
}

BlendingIndex buildBlendingIndex(const std::vector<double> &weights, int64_t size) {
  BlendingIndex index;
  std::vector<int16_t> &datasets = index.dataset.build();
  std::vector<int64_t> &samples = index.sample.build();
  datasets.resize(static_cast<size_t>(size));
  samples.resize(static_cast<size_t>(size));
  std::vector<int64_t> drawn(weights.size(), 0);
  for (int64_t i = 0; i < size; ++i) {
    double at = std::max(static_cast<double>(i), 1.0);
    size_t best = 0;
    double bestError = weights[0] * at - static_cast<double>(drawn[0]);
    for (size_t d = 1; d < weights.size(); ++d) {
      double error = weights[d] * at - static_cast<double>(drawn[d]);
      if (error > bestError) { // ties go to the lower index
        bestError = error;
        best = d;
      }
    }
    datasets[static_cast<size_t>(i)] = static_cast<int16_t>(best);
    samples[static_cast<size_t>(i)] = drawn[best]++;
  }
  return index;
}

std::vector<int64_t> blendedDatasetSizes(const std::vector<double> &weights, int64_t size) {
  std::vector<int64_t> sizes;
  for (double w : weights)
    sizes.push_back(
        static_cast<int64_t>(std::ceil(std::ceil(static_cast<double>(size) * w) * 1.005)));
  return sizes;
}

} // namespace mt
