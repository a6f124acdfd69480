//===- IndexCache.h - index arrays saved for the next start -----*- C++ -*-===//
//
// Building a split's index arrays reads every document length and shuffles
// every document and sample: at a 100 GB corpus, minutes at every start.
// mt-run saves them (--data-cache-path, by default a `cache` directory next
// to the data) and maps them on the next start. A cache file is
//
//   "MTIDXC01"  u64 key bytes, the key (padded to 8)
//   u64 array count, then per array: u64 name bytes, the name (padded to
//   8), u64 element bytes, u64 count, the elements (padded to 8)
//   u64 checksum of everything before it (hashBytes over 1 MiB blocks,
//   each seeded with the previous block's hash)
//
// all little-endian. The key describes everything the arrays depend on: the
// dataset's identity (its files' paths, sizes, modification times and
// inodes, and a hash of the whole .idx) and every option of the index. A
// file whose checksum, layout or key does not match is not used: the index
// is built again and the file replaced. Files are written to a temporary
// name and renamed, so a reader never sees half of one.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_INDEXCACHE_H
#define MT_DATA_INDEXCACHE_H

#include "mt/Data/Files.h"
#include "mt/Data/IndexArray.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mt {

/// A 64-bit hash of bytes (not cryptographic: it catches damage).
uint64_t hashBytes(const void *data, size_t size, uint64_t seed = 0);

/// What identifies an indexed dataset's contents for a cache key: the
/// absolute paths, sizes, modification times and inodes of PREFIX.idx and
/// PREFIX.bin, and a hash of all of PREFIX.idx.
bool indexedDatasetIdentity(const std::string &prefix, std::string &identity, std::string &error);

class IndexCacheWriter {
public:
  template <typename T> void add(const std::string &name, const T *data, size_t count) {
    arrays_.push_back({name, data, sizeof(T), count});
  }
  /// Writes the file (to a temporary name, then renamed onto `path`).
  bool write(const std::string &path, const std::string &key, std::string &error) const;

private:
  struct Array {
    std::string name;
    const void *data;
    size_t elementBytes, count;
  };
  std::vector<Array> arrays_;
};

class IndexCacheReader {
public:
  /// Maps `path` and checks it; false with `why` (missing, damaged, another key).
  bool open(const std::string &path, const std::string &key, std::string &why);
  /// Views array `name` of T; false when it is missing or of another type.
  template <typename T> bool get(const std::string &name, IndexArray<T> &out) const {
    const void *data = nullptr;
    size_t count = 0;
    if (!find(name, sizeof(T), data, count))
      return false;
    out.view(static_cast<const T *>(data), count, file_);
    return true;
  }

private:
  bool find(const std::string &name, size_t elementBytes, const void *&data, size_t &count) const;
  struct Array {
    std::string name;
    size_t elementBytes, count, offset;
  };
  std::shared_ptr<MappedFile> file_;
  std::vector<Array> arrays_;
};

/// The file for an index: DIR/NAME-<hash of key>.idxcache.
std::string indexCachePath(const std::string &dir, const std::string &name, const std::string &key);

} // namespace mt

#endif // MT_DATA_INDEXCACHE_H
