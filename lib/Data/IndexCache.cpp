//===- IndexCache.cpp - index arrays saved for the next start --------------===//
#include "mt/Data/IndexCache.h"

#include "mt/Data/IndexedDataset.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mt {

namespace {

constexpr char kMagic[8] = {'M', 'T', 'I', 'D', 'X', 'C', '0', '1'};

size_t padded(size_t bytes) { return (bytes + 7) & ~size_t(7); }

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

/// The checksum covers the content in blocks of this size, each hashed with
/// the previous block's hash as its seed (so writing can stream).
constexpr size_t kBlock = 1 << 20;

uint64_t blockChecksum(const char *data, size_t size) {
  uint64_t hash = 0;
  for (size_t at = 0; at < size; at += kBlock)
    hash = hashBytes(data + at, std::min(kBlock, size - at), hash);
  return hash;
}

/// Appends to a file a block at a time, hashing each block.
class HashingWriter {
public:
  explicit HashingWriter(std::FILE *f) : f_(f) { block_.reserve(kBlock); }
  bool bytes(const void *data, size_t size) {
    const char *p = static_cast<const char *>(data);
    while (size > 0) {
      size_t take = std::min(size, kBlock - block_.size());
      block_.insert(block_.end(), p, p + take);
      p += take;
      size -= take;
      if (block_.size() == kBlock && !flush())
        return false;
    }
    return true;
  }
  bool u64(uint64_t v) { return bytes(&v, 8); }
  bool pad(size_t size) {
    static const char zeros[8] = {};
    return bytes(zeros, padded(size) - size);
  }
  /// Writes the last block; then hash() is the checksum.
  bool flush() {
    if (block_.empty())
      return true;
    hash_ = hashBytes(block_.data(), block_.size(), hash_);
    bool ok = std::fwrite(block_.data(), 1, block_.size(), f_) == block_.size();
    block_.clear();
    return ok;
  }
  uint64_t hash() const { return hash_; }

private:
  std::FILE *f_;
  std::vector<char> block_;
  uint64_t hash_ = 0;
};

} // namespace

uint64_t hashBytes(const void *data, size_t size, uint64_t seed) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  uint64_t h = mix(seed ^ 0x9E3779B97F4A7C15ull);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    h = mix(h ^ word) + 0x632BE59BD9B4E019ull;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p + i, size - i);
  return mix(h ^ tail ^ (static_cast<uint64_t>(size - i) << 56));
}

bool indexedDatasetIdentity(const std::string &prefix, std::string &identity, std::string &error) {
  identity.clear();
  for (const std::string &path : {indexPath(prefix), dataPath(prefix)}) {
    char resolved[PATH_MAX];
    struct stat st;
    if (!realpath(path.c_str(), resolved) || stat(resolved, &st) != 0) {
      error = "cannot open '" + path + "': " + std::strerror(errno);
      return false;
    }
    identity += std::string(resolved) + " bytes " + std::to_string(st.st_size) + " modified " +
                std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
                " inode " + std::to_string(st.st_ino) + "\n";
  }
  MappedFile index;
  if (!index.open(indexPath(prefix), error))
    return false;
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(hashBytes(index.bytes().data(), index.size())));
  identity += std::string("idx hash ") + hash + "\n";
  return true;
}

std::string indexCachePath(const std::string &dir, const std::string &name,
                           const std::string &key) {
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(hashBytes(key.data(), key.size())));
  return dir + "/" + name + "-" + hash + ".idxcache";
}

bool IndexCacheWriter::write(const std::string &path, const std::string &key,
                             std::string &error) const {
  std::string temp = path + ".tmp." + std::to_string(getpid()) + "." +
                     std::to_string(reinterpret_cast<uintptr_t>(this));
  std::FILE *f = std::fopen(temp.c_str(), "wb");
  if (!f) {
    error = "cannot write '" + temp + "': " + std::strerror(errno);
    return false;
  }
  HashingWriter out(f);
  bool ok = out.bytes(kMagic, 8) && out.u64(key.size()) && out.bytes(key.data(), key.size()) &&
            out.pad(key.size()) && out.u64(arrays_.size());
  for (const Array &a : arrays_) {
    size_t bytes = a.elementBytes * a.count;
    ok = ok && out.u64(a.name.size()) && out.bytes(a.name.data(), a.name.size()) &&
         out.pad(a.name.size()) && out.u64(a.elementBytes) && out.u64(a.count) &&
         out.bytes(a.data, bytes) && out.pad(bytes);
  }
  ok = ok && out.flush();
  uint64_t checksum = out.hash();
  ok = ok && std::fwrite(&checksum, 8, 1, f) == 1;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

bool IndexCacheReader::open(const std::string &path, const std::string &key, std::string &why) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    why = "none yet";
    return false;
  }
  auto file = std::make_shared<MappedFile>();
  if (!file->open(path, why))
    return false;
  const char *base = file->bytes().data();
  size_t size = file->size(), at = 0;
  auto damaged = [&](const char *what) {
    why = std::string("damaged (") + what + ")";
    return false;
  };
  auto u64 = [&](uint64_t &v) {
    if (size - at < 8)
      return false;
    std::memcpy(&v, base + at, 8);
    at += 8;
    return true;
  };
  if (size < 24 || std::memcmp(base, kMagic, 8) != 0)
    return damaged("not a cache file");
  uint64_t checksum;
  std::memcpy(&checksum, base + size - 8, 8);
  if (blockChecksum(base, size - 8) != checksum)
    return damaged("checksum");
  size -= 8;
  at = 8;
  uint64_t keyBytes = 0, count = 0;
  if (!u64(keyBytes) || keyBytes > size - at)
    return damaged("layout");
  if (std::string(base + at, keyBytes) != key) {
    why = "made for other data or options";
    return false;
  }
  at += padded(keyBytes);
  if (at > size || !u64(count))
    return damaged("layout");
  arrays_.clear();
  for (uint64_t i = 0; i < count; ++i) {
    Array a;
    uint64_t nameBytes = 0, elementBytes = 0, n = 0;
    if (!u64(nameBytes) || nameBytes > size - at)
      return damaged("layout");
    a.name.assign(base + at, nameBytes);
    at += padded(nameBytes);
    if (at > size || !u64(elementBytes) || !u64(n) || elementBytes == 0 || elementBytes > 64 ||
        n > (size - at) / elementBytes)
      return damaged("layout");
    a.elementBytes = elementBytes;
    a.count = n;
    a.offset = at;
    at += padded(n * elementBytes);
    if (at > size)
      return damaged("layout");
    arrays_.push_back(a);
  }
  if (at != size)
    return damaged("layout");
  file_ = std::move(file);
  return true;
}

bool IndexCacheReader::find(const std::string &name, size_t elementBytes, const void *&data,
                            size_t &count) const {
  for (const Array &a : arrays_)
    if (a.name == name && a.elementBytes == elementBytes) {
      data = file_->bytes().data() + a.offset;
      count = a.count;
      return true;
    }
  return false;
}

} // namespace mt
