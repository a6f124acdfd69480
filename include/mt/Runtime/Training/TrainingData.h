//===- TrainingData.h - the corpus mt-run trains on ------------*- C++ -*-===//
//
// --data names a Megatron indexed dataset (PREFIX with PREFIX.bin and
// PREFIX.idx, as mt-data or Megatron's preprocess_data.py write them), a
// JSON-lines file (the "text" field of each line is a document), a
// plain-text file (one document per blank-line-separated paragraph; both
// tokenized with the GPT-2 BPE, end-of-text appended), or a `.tokens` file of whitespace-separated
// ids, one document per line (for tests with small vocabularies). Samples are built
// as Megatron builds GPT samples (mt/Data/GptDataset.h), or for a model that
// takes BERT's inputs, from an indexed dataset of sentence-split documents as
// Megatron builds BERT samples (mt/Data/BertDataset.h).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_TRAININGDATA_H
#define MT_RUNTIME_TRAINING_TRAININGDATA_H

#include "mt/Data/BertDataset.h"
#include "mt/Data/GptDataset.h"
#include "mt/Data/IndexedDataset.h"
#include "mt/Data/T5Dataset.h"
#include "mt/Runtime/Training/Batch.h"

#include <memory>
#include <optional>
#include <string>

namespace mt {

/// Serves one split's samples in order, cycling when it runs out.
class SplitSource : public BatchSource {
public:
  int64_t numSamples() const {
    return isBert_ ? bert_.numSamples() : isT5_ ? t5_.numSamples() : dataset_.numSamples();
  }
  /// Samples served so far (the data order's position), and moving it.
  int64_t position() const { return cursor_; }
  void seek(int64_t samples) { cursor_ = samples; }
  bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) override;

private:
  friend class TrainingData;
  void nextBert(int64_t row, int64_t seq, MicroBatch &batch);
  void nextT5(int64_t rows, MicroBatch &batch);
  GptDataset dataset_;
  BertDataset bert_;
  T5Dataset t5_;
  bool isBert_ = false, isT5_ = false;
  int64_t cursor_ = 0, seq_ = 0;
  std::string name_;
};

class TrainingData {
public:
  /// Opens the corpus; every token id must be below `vocab`.
  bool open(const std::string &path, int64_t vocab, std::string &error);
  /// BERT samples instead: `path` must be an indexed dataset of
  /// sentence-split documents (mt-data --split-sentences).
  bool openBert(const std::string &path, int64_t vocab, const BertSpecialIds &ids,
                std::string &error);
  /// T5 span-corruption samples of any tokenized dataset, with a decoder
  /// sequence of `decoderLength` tokens; `ids.firstSentinel` is the
  /// tokenizer's vocabulary size.
  bool openT5(const std::string &path, int64_t vocab, const T5SpecialIds &ids,
              int64_t decoderLength, std::string &error);

  /// Builds the train and valid splits ("949,50,1") for `trainSamples`
  /// training samples of `seq` tokens (enough epochs are laid out to cover
  /// them, as Megatron does).
  bool build(const std::string &split, int64_t seq, uint64_t seed, int64_t trainSamples,
             std::string &error);

  SplitSource &train() { return train_; }
  SplitSource &valid() { return valid_; }

private:
  IndexedDataset indexed_;
  std::optional<BertSpecialIds> bert_;
  std::optional<T5SpecialIds> t5_;
  int64_t decoderLength_ = 0;
  std::unique_ptr<DocumentSource> documents_;
  SplitSource train_, valid_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TRAININGDATA_H
