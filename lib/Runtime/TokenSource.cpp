//===- TokenSource.cpp - micro-batches from a token stream -----------------===//
#include "mt/Runtime/TokenSource.h"

#include "mt/Runtime/Initializer.h"

#include <fstream>
#include <sstream>

namespace mt {

TokenSource::TokenSource(std::shared_ptr<const std::vector<int32_t>> tokens, int64_t begin,
                         int64_t end, int64_t seq, uint64_t seed)
    : tokens_(std::move(tokens)), begin_(begin), seq_(seq), seed_(seed) {
  int64_t samples = seq > 0 ? (end - begin - 1) / seq : 0;
  for (int64_t s = 0; s < samples; ++s)
    order_.push_back(s);
  shuffle();
}

void TokenSource::shuffle() {
  // Fisher-Yates with splitmix64 keyed by (seed, epoch): the same order on
  // every machine.
  uint64_t key = splitmix64(seed_ ^ splitmix64(static_cast<uint64_t>(epoch_) + 0x5eed));
  for (size_t i = order_.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(splitmix64(key + i) % i);
    std::swap(order_[i - 1], order_[j]);
  }
}

bool TokenSource::next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) {
  if (order_.empty() || seq != seq_) {
    error = "the data split holds no sample of " + std::to_string(seq + 1) + " tokens";
    return false;
  }
  size_t n = static_cast<size_t>(rows * seq);
  batch.tokens.resize(n);
  batch.labels.resize(n);
  batch.lossMask.assign(n, 1.0f);
  for (int64_t r = 0; r < rows; ++r) {
    if (cursor_ == order_.size()) {
      cursor_ = 0;
      ++epoch_;
      shuffle();
    }
    int64_t start = begin_ + order_[cursor_++] * seq_;
    for (int64_t t = 0; t < seq; ++t) {
      batch.tokens[r * seq + t] = (*tokens_)[start + t];
      batch.labels[r * seq + t] = (*tokens_)[start + t + 1];
    }
  }
  return true;
}

bool TokenCorpus::load(const std::string &path, int64_t vocab, std::string &error) {
  if (path.size() < 7 || path.compare(path.size() - 7, 7, ".tokens") != 0) {
    error = "unsupported data '" + path + "': expected pre-tokenized ids in a .tokens file";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    error = "cannot open data '" + path + "'";
    return false;
  }
  tokens_ = std::make_shared<std::vector<int32_t>>();
  std::string word;
  int64_t position = 0;
  while (in >> word) {
    char *end = nullptr;
    long long id = std::strtoll(word.c_str(), &end, 10);
    if (*end || id < 0 || id >= vocab) {
      error = "'" + path + "': token " + std::to_string(position) + " ('" + word +
              "') is not an id in [0, " + std::to_string(vocab) + ")";
      return false;
    }
    tokens_->push_back(static_cast<int32_t>(id));
    ++position;
  }
  return true;
}

bool TokenCorpus::split(const std::string &split, int64_t seq, uint64_t seed, TokenSource &train,
                        TokenSource &valid, std::string &error) const {
  std::vector<double> weights;
  std::stringstream ss(split);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char *end = nullptr;
    double w = std::strtod(part.c_str(), &end);
    if (part.empty() || *end || w < 0) {
      error = "--split must be comma-separated non-negative weights like 949,50,1, got '" + split + "'";
      return false;
    }
    weights.push_back(w);
  }
  while (weights.size() < 3)
    weights.push_back(0);
  double total = weights[0] + weights[1] + weights[2];
  if (weights.size() > 3 || total <= 0) {
    error = "--split must have at most three weights with a positive sum, got '" + split + "'";
    return false;
  }
  int64_t n = static_cast<int64_t>(tokens_->size());
  int64_t trainEnd = static_cast<int64_t>(n * (weights[0] / total));
  int64_t validEnd = static_cast<int64_t>(n * ((weights[0] + weights[1]) / total));
  train = TokenSource(tokens_, 0, trainEnd, seq, seed);
  valid = TokenSource(tokens_, trainEnd, validEnd, seq, seed + 1);
  if (train.numSamples() == 0) {
    error = "the training split holds " + std::to_string(trainEnd) +
            " tokens, fewer than one sample of " + std::to_string(seq + 1);
    return false;
  }
  return true;
}

} // namespace mt
