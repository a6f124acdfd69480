//===- DataCache.h - a run's index arrays kept between starts ---*- C++ -*-===//
//
// For indexed datasets, TrainingData keeps what is slow to make at corpus
// scale in cache files (mt/Data/IndexCache.h): the check that every token
// id fits the vocabulary (a pass over every token) and each GPT split's
// document, stream and sample index arrays. On the next start (a resume,
// another layout, another rank) they are mapped instead of built. Cache
// files sit in --data-cache-path, or in a `cache` directory next to each
// dataset. Only the writing rank saves; a cache that cannot be saved (a
// read-only directory) is a note, not an error.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_DATACACHE_H
#define MT_RUNTIME_TRAINING_DATACACHE_H

#include "mt/Data/GptDataset.h"

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
  /// What it did, for the log ("reused ...", "built ...").
  const std::vector<std::string> &notes() const { return notes_; }

private:
  std::string dirFor(const std::string &prefix) const;
  std::string baseName(const std::string &prefix) const;
  std::string dir_;
  bool write_ = true;
  std::vector<std::string> notes_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_DATACACHE_H
