//===- DataCache.cpp - a run's index arrays kept between starts ------------===//
#include "mt/Runtime/Training/DataCache.h"

#include "mt/Data/IndexCache.h"

#include <cerrno>
#include <cstdio>
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
  auto load = [&](const IndexCacheReader &reader, std::string &why) {
    GptIndex index;
    IndexArray<int64_t> tokens;
    if (!reader.get("tokens_per_epoch", tokens) || tokens.size() != 1 ||
        !reader.get("document_order", index.documentOrder) ||
        !reader.get("stream_start", index.streamStart) ||
        !reader.get("sample_order", index.sampleOrder)) {
      why = "damaged (arrays)";
      return false;
    }
    index.tokensPerEpoch = tokens[0];
    return dataset.adopt(documents, options, std::move(index), why);
  };
  auto build = [&](std::string &error) {
    return dataset.build(documents, begin, end, options, error);
  };
  auto save = [&](IndexCacheWriter &writer) {
    const GptIndex &index = dataset.index();
    writer.add("tokens_per_epoch", &index.tokensPerEpoch, 1);
    writer.add("document_order", index.documentOrder.data(), index.documentOrder.size());
    writer.add("stream_start", index.streamStart.data(), index.streamStart.size());
    writer.add("sample_order", index.sampleOrder.data(), index.sampleOrder.size());
  };
  return splitIndex(prefix, split, key, load, build, save, error);
}

bool DataCache::bert(const std::string &prefix, const std::string &identity, const char *split,
                     int64_t begin, int64_t end, int64_t wanted, const IndexedDataset &dataset,
                     const BertSpecialIds &ids, const BertSampleOptions &options, BertDataset &out,
                     const std::function<bool(std::string &)> &build, std::string &error) {
  if (identity.empty())
    return build(error);
  std::string key = "mt bert sample index 1\n" + identity + "documents [" + std::to_string(begin) +
                    ", " + std::to_string(end) + ") seq " + std::to_string(options.seqLength) +
                    " seed " + std::to_string(options.seed) + " samples " + std::to_string(wanted) +
                    " short " + std::to_string(options.shortSeqProb) + "\n";
  auto load = [&](const IndexCacheReader &reader, std::string &why) {
    IndexArray<BertRun> runs;
    IndexArray<int64_t> skipped;
    if (!reader.get("runs", runs) || !reader.get("skipped_documents", skipped) ||
        skipped.size() != 1) {
      why = "damaged (arrays)";
      return false;
    }
    return out.adopt(dataset, ids, options, std::move(runs), skipped[0], why);
  };
  auto save = [&](IndexCacheWriter &writer) {
    writer.add("runs", out.runs().data(), out.runs().size());
    int64_t skipped = out.skippedDocuments();
    writer.add("skipped_documents", &skipped, 1);
  };
  return splitIndex(prefix, split, key, load, build, save, error);
}

bool DataCache::t5(const std::string &prefix, const std::string &identity, const char *split,
                   int64_t begin, int64_t end, int64_t wanted, const DocumentSource &documents,
                   const T5SpecialIds &ids, const T5SampleOptions &options, T5Dataset &out,
                   const std::function<bool(std::string &)> &build, std::string &error) {
  std::string key =
      "mt t5 sample index 1\n" + identity + "documents [" + std::to_string(begin) + ", " +
      std::to_string(end) + ") encoder " + std::to_string(options.encoderLength) + " decoder " +
      std::to_string(options.decoderLength) + " seed " + std::to_string(options.seed) +
      " samples " + std::to_string(wanted) + " noise " + std::to_string(options.noiseDensity) +
      " span " + std::to_string(options.meanSpanLength) + " bos " + std::to_string(ids.bos) +
      " eos " + std::to_string(ids.eos) + " sentinels " + std::to_string(ids.numSentinels) + "\n";
  auto load = [&](const IndexCacheReader &reader, std::string &why) {
    IndexArray<T5Chunk> chunks;
    IndexArray<int64_t> order;
    if (!reader.get("chunks", chunks) || !reader.get("order", order)) {
      why = "damaged (arrays)";
      return false;
    }
    return out.adopt(documents, ids, options, std::move(chunks), std::move(order), why);
  };
  auto save = [&](IndexCacheWriter &writer) {
    writer.add("chunks", out.chunks().data(), out.chunks().size());
    writer.add("order", out.order().data(), out.order().size());
  };
  return splitIndex(prefix, split, key, load, build, save, error);
}

bool DataCache::blend(const std::vector<std::string> &prefixes,
                      const std::vector<std::string> &identities,
                      const std::vector<double> &weights, const char *split, int64_t size,
                      BlendingIndex &out, std::string &error) {
  std::string key = "mt blending index 1\nsamples " + std::to_string(size) + "\n";
  for (size_t d = 0; d < prefixes.size(); ++d) {
    char weight[40];
    std::snprintf(weight, sizeof weight, "%.17g", weights[d]);
    key += std::string("weight ") + weight + "\n" + identities[d];
  }
  auto load = [&](const IndexCacheReader &reader, std::string &why) {
    BlendingIndex index;
    bool fits = reader.get("dataset", index.dataset) && reader.get("sample", index.sample) &&
                static_cast<int64_t>(index.dataset.size()) == size &&
                static_cast<int64_t>(index.sample.size()) == size;
    for (size_t i = 0; fits && i < index.dataset.size(); ++i)
      fits = index.dataset[i] >= 0 && static_cast<size_t>(index.dataset[i]) < prefixes.size() &&
             index.sample[i] >= 0;
    if (!fits) {
      why = "damaged (arrays)";
      return false;
    }
    out = std::move(index);
    return true;
  };
  auto build = [&](std::string &) {
    out = buildBlendingIndex(weights, size);
    return true;
  };
  auto save = [&](IndexCacheWriter &writer) {
    writer.add("dataset", out.dataset.data(), out.dataset.size());
    writer.add("sample", out.sample.data(), out.sample.size());
  };
  std::string what = "the " + std::string(split) + " blending index of '" + prefixes[0] + "' and " +
                     std::to_string(prefixes.size() - 1) + " more";
  return index(prefixes[0], baseName(prefixes[0]) + "-blend-" + split, what, key, load, build, save,
               error);
}

bool DataCache::splitIndex(const std::string &prefix, const char *split, const std::string &key,
                           const Load &load, const Build &build, const Save &save,
                           std::string &error) {
  return index(prefix, baseName(prefix) + "-" + split,
               "the " + std::string(split) + " index of '" + prefix + "'", key, load, build, save,
               error);
}

bool DataCache::index(const std::string &prefix, const std::string &name, const std::string &what,
                      const std::string &key, const Load &load, const Build &build,
                      const Save &save, std::string &error) {
  std::string dir = dirFor(prefix);
  std::string path = indexCachePath(dir, name, key);
  IndexCacheReader reader;
  std::string why;
  if (reader.open(path, key, why) && load(reader, why)) {
    notes_.push_back("data cache: reused " + what + " (" + path + ")");
    return true;
  }
  if (!build(error))
    return false;
  std::string was = why == "none yet" ? "" : " (the cache was " + why + ")";
  if (!write_) {
    notes_.push_back("data cache: built " + what + was);
    return true;
  }
  IndexCacheWriter writer;
  save(writer);
  std::string failed;
  if (!makeDirectories(dir, failed) || !writer.write(path, key, failed))
    notes_.push_back("data cache: built " + what + was + "; not saved: " + failed);
  else
    notes_.push_back("data cache: built " + what + was + ", saved to " + path);
  return true;
}

} // namespace mt
