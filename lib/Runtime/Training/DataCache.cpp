//===- DataCache.cpp - a run's index arrays kept between starts ------------===//
#include "mt/Runtime/Training/DataCache.h"

#include "mt/Data/IndexCache.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace mt {

namespace {

/// Creates `dir` and its parents; false with `error`.
bool makeDirectories(const std::string &dir, std::string &error) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string part = dir.substr(0, slash);
    if (mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) {
      error = "cannot create '" + part + "': " + std::strerror(errno);
      return false;
    }
    if (slash == std::string::npos)
      return true;
  }
}

} // namespace

std::string DataCache::dirFor(const std::string &prefix) const {
  if (!dir_.empty())
    return dir_;
  size_t slash = prefix.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : prefix.substr(0, slash)) + "/cache";
}

std::string DataCache::baseName(const std::string &prefix) const {
  size_t slash = prefix.find_last_of('/');
  return slash == std::string::npos ? prefix : prefix.substr(slash + 1);
}

bool DataCache::tokensBelow(const std::string &prefix, const std::string &identity, int64_t vocab) {
  std::string key = "mt token range 1\n" + identity;
  IndexCacheReader reader;
  IndexArray<int64_t> largest;
  std::string why;
  return reader.open(indexCachePath(dirFor(prefix), baseName(prefix) + "-tokens", key), key, why) &&
         reader.get("largest_token", largest) && largest.size() == 1 && largest[0] < vocab;
}

void DataCache::saveLargestToken(const std::string &prefix, const std::string &identity,
                                 int64_t largest) {
  if (!write_)
    return;
  std::string key = "mt token range 1\n" + identity, error;
  IndexCacheWriter writer;
  writer.add("largest_token", &largest, 1);
  std::string dir = dirFor(prefix);
  if (!makeDirectories(dir, error) ||
      !writer.write(indexCachePath(dir, baseName(prefix) + "-tokens", key), key, error))
    notes_.push_back("data cache: not saved: " + error);
}

bool DataCache::gpt(const std::string &prefix, const std::string &identity, const char *split,
                    const DocumentSource &documents, int64_t begin, int64_t end,
                    const GptSampleOptions &options, GptDataset &dataset, std::string &error) {
  std::string key = "mt gpt sample index 1\n" + identity + "documents [" + std::to_string(begin) +
                    ", " + std::to_string(end) + ") seq " + std::to_string(options.seqLength) +
                    " seed " + std::to_string(options.seed) + " epochs " +
                    std::to_string(options.numEpochs) + "\n";
  std::string dir = dirFor(prefix);
  std::string path = indexCachePath(dir, baseName(prefix) + "-" + split, key);
  IndexCacheReader reader;
  std::string why;
  if (reader.open(path, key, why)) {
    GptIndex index;
    IndexArray<int64_t> tokens;
    std::string unfit;
    if (reader.get("tokens_per_epoch", tokens) && tokens.size() == 1 &&
        reader.get("document_order", index.documentOrder) &&
        reader.get("stream_start", index.streamStart) &&
        reader.get("sample_order", index.sampleOrder)) {
      index.tokensPerEpoch = tokens[0];
      if (dataset.adopt(documents, options, std::move(index), unfit)) {
        notes_.push_back("data cache: reused the " + std::string(split) + " index of '" + prefix +
                         "' (" + path + ")");
        return true;
      }
      why = unfit;
    } else {
      why = "damaged (arrays)";
    }
  }
  if (!dataset.build(documents, begin, end, options, error))
    return false;
  std::string was = why == "none yet" ? "" : " (the cache was " + why + ")";
  if (!write_) {
    notes_.push_back("data cache: built the " + std::string(split) + " index of '" + prefix + "'" +
                     was);
    return true;
  }
  const GptIndex &index = dataset.index();
  IndexCacheWriter writer;
  writer.add("tokens_per_epoch", &index.tokensPerEpoch, 1);
  writer.add("document_order", index.documentOrder.data(), index.documentOrder.size());
  writer.add("stream_start", index.streamStart.data(), index.streamStart.size());
  writer.add("sample_order", index.sampleOrder.data(), index.sampleOrder.size());
  std::string failed;
  if (!makeDirectories(dir, failed) || !writer.write(path, key, failed))
    notes_.push_back("data cache: built the " + std::string(split) + " index of '" + prefix + "'" +
                     was + "; not saved: " + failed);
  else
    notes_.push_back("data cache: built the " + std::string(split) + " index of '" + prefix + "'" +
                     was + ", saved to " + path);
  return true;
}

} // namespace mt
