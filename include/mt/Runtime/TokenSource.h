//===- TokenSource.h - micro-batches from a token stream -------*- C++ -*-===//
//
// The corpus is one stream of token ids; samples are windows of seq+1
// tokens (input = window[:-1], labels = window[1:]) visited in an order
// shuffled from the seed, as Megatron builds GPT samples.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TOKENSOURCE_H
#define MT_RUNTIME_TOKENSOURCE_H

#include "mt/Runtime/Trainer.h"

#include <memory>
#include <string>
#include <vector>

namespace mt {

class TokenSource : public BatchSource {
public:
  TokenSource() = default;
  TokenSource(std::shared_ptr<const std::vector<int32_t>> tokens, int64_t begin, int64_t end,
              int64_t seq, uint64_t seed);

  int64_t numSamples() const { return static_cast<int64_t>(order_.size()); }
  bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) override;

private:
  std::shared_ptr<const std::vector<int32_t>> tokens_;
  int64_t begin_ = 0, seq_ = 0;
  uint64_t seed_ = 0;
  std::vector<int64_t> order_;
  size_t cursor_ = 0;
  int64_t epoch_ = 0;
  void shuffle();
};

class TokenCorpus {
public:
  /// Loads token ids; `path` ending in `.tokens` holds whitespace-separated
  /// ids. Every id must be below `vocab`.
  bool load(const std::string &path, int64_t vocab, std::string &error);

  /// Splits the stream by the weights of `split` ("949,50,1": train, valid,
  /// test) into training and validation sources.
  bool split(const std::string &split, int64_t seq, uint64_t seed, TokenSource &train,
             TokenSource &valid, std::string &error) const;

private:
  std::shared_ptr<std::vector<int32_t>> tokens_;
};

} // namespace mt

#endif // MT_RUNTIME_TOKENSOURCE_H
