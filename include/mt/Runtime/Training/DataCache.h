//===- DataCache.h - a run's index arrays kept between starts ---*- C++ -*-===//
//
// For indexed datasets, TrainingData keeps what is slow to make at corpus
// scale in cache files (mt/Data/IndexCache.h): the check that every token
// id fits the vocabulary (a pass over every token) and each GPT split's
// document, stream and sample index arrays (BERT's runs, T5's chunks and
// their orders). On the next start (a resume,
// another layout, another rank) they are mapped instead of built. Cache
// files sit in --data-cache-path, or in a `cache` directory next to each
// dataset. Only the writing rank saves; a cache that cannot be saved (a
// read-only directory) is a note, not an error.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_DATACACHE_H
#define MT_RUNTIME_TRAINING_DATACACHE_H

#include "mt/Data/BertDataset.h"
#include "mt/Data/DataBlend.h"
#include "mt/Data/GptDataset.h"
#include "mt/Data/IndexCache.h"
#include "mt/Data/T5Dataset.h"

#include <functional>

#include <string>
#include <vector>

namespace mt {

class DataCache {
public:
  /// `dir` empty: next to each dataset. `write`: this rank saves caches.
  void configure(std::string dir, bool write) {
    dir_ = std::move(dir);
    write_ = write;
  }
  /// Whether a cache says every token id of the dataset lies in [0, vocab).
  bool tokensBelow(const std::string &prefix, const std::string &identity, int64_t vocab);
  /// Records the dataset's largest token id (all are >= 0).
  void saveLargestToken(const std::string &prefix, const std::string &identity, int64_t largest);
  /// GPT's index of documents [begin, end) for split `split`: mapped from
  /// the cache, or built and saved.
  bool gpt(const std::string &prefix, const std::string &identity, const char *split,
           const DocumentSource &documents, int64_t begin, int64_t end,
           const GptSampleOptions &options, GptDataset &dataset, std::string &error);
  /// BERT's and T5's indices of documents [begin, end) laid out for
  /// `wanted` samples: mapped from the cache, or made by `build` and saved.
  bool bert(const std::string &prefix, const std::string &identity, const char *split,
            int64_t begin, int64_t end, int64_t wanted, const IndexedDataset &dataset,
            const BertSpecialIds &ids, const BertSampleOptions &options, BertDataset &out,
            const std::function<bool(std::string &)> &build, std::string &error);
  bool t5(const std::string &prefix, const std::string &identity, const char *split, int64_t begin,
          int64_t end, int64_t wanted, const DocumentSource &documents, const T5SpecialIds &ids,
          const T5SampleOptions &options, T5Dataset &out,
          const std::function<bool(std::string &)> &build, std::string &error);
  /// Any index: `load` takes it from a cache file that matches `key` (false
  /// with why not), else `build` makes it and `save` lists its arrays.
  using Load = std::function<bool(const IndexCacheReader &, std::string &why)>;
  using Build = std::function<bool(std::string &error)>;
  using Save = std::function<void(IndexCacheWriter &)>;
  /// The file is NAME-<hash of key>.idxcache in the cache directory of
  /// `prefix`; `what` names the index in the notes.
  bool index(const std::string &prefix, const std::string &name, const std::string &what,
             const std::string &key, const Load &load, const Build &build, const Save &save,
             std::string &error);
  /// A blend's index over datasets of the given identities and weights.
  bool blend(const std::vector<std::string> &prefixes, const std::vector<std::string> &identities,
             const std::vector<double> &weights, const char *split, int64_t size,
             BlendingIndex &out, std::string &error);
  /// What it did, for the log ("reused ...", "built ...").
  const std::vector<std::string> &notes() const { return notes_; }

private:
  /// index() for one dataset's split: file DATASET-SPLIT-<hash>.
  bool splitIndex(const std::string &prefix, const char *split, const std::string &key,
                  const Load &load, const Build &build, const Save &save, std::string &error);
  std::string dirFor(const std::string &prefix) const;
  std::string baseName(const std::string &prefix) const;
  std::string dir_;
  bool write_ = true;
  std::vector<std::string> notes_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_DATACACHE_H
