//===- TrainingData.h - the corpus mt-run trains on ------------*- C++ -*-===//
//
// A dataset is a Megatron indexed dataset (PREFIX with PREFIX.bin and
// PREFIX.idx, as mt-data or Megatron's preprocess_data.py write them), a
// JSON-lines file (the "text" field of each line is a document), a
// plain-text file (one document per blank-line-separated paragraph; both
// tokenized with the GPT-2 BPE, end-of-text appended), or a `.tokens` file of
// whitespace-separated ids, one document per line (for tests with small
// vocabularies). Samples are built as Megatron builds GPT samples
// (mt/Data/GptDataset.h), or for a model that takes BERT's inputs, from an
// indexed dataset of sentence-split documents as Megatron builds BERT samples
// (mt/Data/BertDataset.h), or T5's span corruption (mt/Data/T5Dataset.h).
//
// Each split is one dataset or a blend of several (mt/Data/DataBlend.h):
// either every dataset cut into train/valid/test by --split (Megatron's
// --data-path), or each split's own datasets used whole (--train-data-path,
// --valid-data-path, --test-data-path). A blend of a split that needs N
// samples builds each dataset's split to Megatron's ceil(ceil(N w) 1.005).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_TRAININGDATA_H
#define MT_RUNTIME_TRAINING_TRAININGDATA_H

#include "mt/Data/IndexedDataset.h"
#include "mt/Runtime/Training/DataCache.h"
#include "mt/Runtime/Training/SplitSource.h"

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace mt {

/// Where a run's data come from.
struct DataSources {
  /// Cut by --split: one dataset (--data) or a blend (--data-path).
  DataBlend blend;
  /// Each split's own datasets, used whole (--train-data-path,
  /// --valid-data-path, --test-data-path); only when `blend` is empty.
  std::array<DataBlend, 3> splits;
};

/// How many samples each split must serve (a blend is built for that many;
/// one dataset lays out enough epochs for its training samples).
struct SplitTargets {
  int64_t train = 0, valid = 0, test = 0;
};

class TrainingData {
public:
  /// Before open(): where index caches go (empty: a `cache` directory next
  /// to each indexed dataset), and whether this rank writes them.
  void configureCache(std::string dir, bool write) { cache_.configure(std::move(dir), write); }
  /// What the cache did ("data cache: reused ...").
  const std::vector<std::string> &cacheNotes() const { return cache_.notes(); }

  /// Opens every dataset; every token id must be below `vocab`.
  bool open(const DataSources &sources, int64_t vocab, std::string &error);
  /// BERT samples instead: every dataset must be an indexed dataset of
  /// sentence-split documents (mt-data --split-sentences).
  bool openBert(const DataSources &sources, int64_t vocab, const BertSpecialIds &ids,
                std::string &error);
  /// T5 span-corruption samples of any tokenized dataset, with a decoder
  /// sequence of `decoderLength` tokens; `ids.firstSentinel` is the
  /// tokenizer's vocabulary size.
  bool openT5(const DataSources &sources, int64_t vocab, const T5SpecialIds &ids,
              int64_t decoderLength, std::string &error);

  /// Builds the splits ("949,50,1" for --data-path) for sequences of `seq`.
  bool build(const std::string &split, int64_t seq, uint64_t seed, const SplitTargets &targets,
             std::string &error);

  SplitSource &train() { return splits_[0]; }
  SplitSource &valid() { return splits_[1]; }
  SplitSource &test() { return splits_[2]; }
  /// With a blended split: each of its datasets' samples alone (the
  /// per-dataset validation losses), else nothing.
  std::vector<SplitSource> &partsOf(Split split) { return parts_[static_cast<int>(split)]; }

private:
  struct Dataset {
    std::string prefix, name;
    std::string identity; // an indexed dataset's, for cache keys
    IndexedDataset indexed;
    std::unique_ptr<DocumentSource> documents;
    std::array<DatasetSplit, 3> splits;
  };
  bool openAll(const DataSources &sources, int64_t vocab, std::string &error);
  bool openDataset(Dataset &dataset, int64_t vocab, std::string &error);
  Dataset *find(const std::string &prefix);
  bool buildPart(Dataset &dataset, Split which, int64_t begin, int64_t end, int64_t wanted,
                 std::string &error);
  bool buildSplit(Split which, const DataBlend &blend, bool cut, int64_t wanted,
                  std::string &error);

  DataSources sources_;
  DataCache cache_;
  std::vector<std::unique_ptr<Dataset>> datasets_;
  std::optional<BertSpecialIds> bert_;
  std::optional<T5SpecialIds> t5_;
  int64_t decoderLength_ = 0, seq_ = 0;
  uint64_t seed_ = 0;
  std::array<double, 3> splitWeights_{};
  std::array<SplitSource, 3> splits_;
  std::array<std::vector<SplitSource>, 3> parts_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TRAININGDATA_H
