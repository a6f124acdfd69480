//===- Merge.cpp - several indexed datasets into one -----------------------===//
//
// Megatron's tools/merge_datasets.py: the documents of every input, in the
// order given (a directory: its datasets in sorted order), into one dataset.
// Corpora preprocessed a file or a shard at a time end as one dataset.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "mt/Data/IndexedDataset.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace mt::data_tool {

namespace {

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// The dataset prefixes a word names: itself, or every PREFIX.idx in a directory.
bool prefixesOf(const std::string &word, std::vector<std::string> &prefixes, std::string &error) {
  struct stat st;
  if (stat(word.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    prefixes.push_back(word);
    return true;
  }
  DIR *d = opendir(word.c_str());
  if (!d) {
    error = "cannot list '" + word + "'";
    return false;
  }
  std::vector<std::string> found;
  while (dirent *e = readdir(d))
    if (endsWith(e->d_name, ".idx"))
      found.push_back(word + "/" + std::string(e->d_name, std::strlen(e->d_name) - 4));
  closedir(d);
  if (found.empty()) {
    error = "directory '" + word + "' holds no dataset (PREFIX.idx and PREFIX.bin)";
    return false;
  }
  std::sort(found.begin(), found.end());
  prefixes.insert(prefixes.end(), found.begin(), found.end());
  return true;
}

int failed(IndexedDatasetWriter &writer, const std::string &error) {
  std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
  writer.discard();
  return 1;
}

} // namespace

int runMerge(const MergeOptions &options) {
  std::vector<std::string> prefixes;
  std::string error;
  for (const std::string &word : options.inputs)
    if (!prefixesOf(word, prefixes, error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      return 1;
    }
  for (const std::string &prefix : prefixes)
    if (prefix == options.outputPrefix) {
      std::fprintf(stderr, "mt-data: error: --output-prefix '%s' is one of the inputs\n",
                   prefix.c_str());
      return 1;
    }
  IndexedDatasetWriter writer;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    IndexedDataset input;
    if (!input.open(prefixes[i], error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      writer.discard();
      return 1;
    }
    if (i == 0 && !writer.open(options.outputPrefix, input.dtype(), error))
      return failed(writer, error);
    if (!writer.append(input, error))
      return failed(writer, "'" + prefixes[i] + "': " + error);
  }
  if (!writer.finish(error))
    return failed(writer, error);
  std::printf("merged %zu datasets: %lld documents, %lld tokens -> %s, %s\n", prefixes.size(),
              static_cast<long long>(writer.numDocuments()),
              static_cast<long long>(writer.numTokens()), dataPath(options.outputPrefix).c_str(),
              indexPath(options.outputPrefix).c_str());
  return 0;
}

} // namespace mt::data_tool
