//===- InputStream.cpp - a corpus file's bytes, decompressed ---------------===//
#include "mt/Data/InputStream.h"

#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace mt {

namespace {

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// The file's raw bytes, in chunks.
class RawFile {
public:
  ~RawFile() {
    if (file_)
      std::fclose(file_);
  }
  bool open(const std::string &path, std::string &error) {
    path_ = path;
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_)
      error = "cannot open '" + path + "': " + std::strerror(errno);
    return file_ != nullptr;
  }
  bool read(char *out, size_t size, size_t &got, std::string &error) {
    got = std::fread(out, 1, size, file_);
    consumed_ += got;
    if (got < size && std::ferror(file_)) {
      error = "cannot read '" + path_ + "': " + std::strerror(errno);
      return false;
    }
    return true;
  }
  uint64_t consumed() const { return consumed_; }
  const std::string &path() const { return path_; }

private:
  std::FILE *file_ = nullptr;
  std::string path_;
  uint64_t consumed_ = 0;
};

class PlainStream : public InputStream {
public:
  bool open(const std::string &path, std::string &error) { return file_.open(path, error); }
  bool read(char *out, size_t size, size_t &got, std::string &error) override {
    return file_.read(out, size, got, error);
  }
  uint64_t fileBytesRead() const override { return file_.consumed(); }

private:
  RawFile file_;
};

constexpr size_t kChunk = 1 << 18;

class GzipStream : public InputStream {
public:
  ~GzipStream() override {
    if (started_)
      inflateEnd(&z_);
  }
  bool open(const std::string &path, std::string &error) {
    if (!file_.open(path, error))
      return false;
    std::memset(&z_, 0, sizeof z_);
    // 15 + 32: a zlib or gzip header, detected.
    if (inflateInit2(&z_, 15 + 32) != Z_OK) {
      error = "cannot start zlib for '" + path + "'";
      return false;
    }
    started_ = true;
    in_.resize(kChunk);
    return true;
  }
  bool read(char *out, size_t size, size_t &got, std::string &error) override {
    got = 0;
    while (got == 0) {
      if (z_.avail_in == 0) {
        size_t n = 0;
        if (!file_.read(in_.data(), in_.size(), n, error))
          return false;
        if (n == 0) {
          if (midMember_) {
            error = "'" + file_.path() + "' ends inside a gzip stream (cut short?)";
            return false;
          }
          return true; // the end
        }
        z_.next_in = reinterpret_cast<Bytef *>(in_.data());
        z_.avail_in = static_cast<uInt>(n);
      }
      z_.next_out = reinterpret_cast<Bytef *>(out);
      z_.avail_out = static_cast<uInt>(size);
      int rc = inflate(&z_, Z_NO_FLUSH);
      got = size - z_.avail_out;
      midMember_ = true;
      if (rc == Z_STREAM_END) {
        midMember_ = false;
        inflateReset(&z_); // another member may follow
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        error =
            "'" + file_.path() + "' is not valid gzip data (" + (z_.msg ? z_.msg : "zlib") + ")";
        return false;
      }
    }
    return true;
  }
  uint64_t fileBytesRead() const override { return file_.consumed() - z_.avail_in; }

private:
  RawFile file_;
  z_stream z_;
  bool started_ = false, midMember_ = false;
  std::vector<char> in_;
};

class ZstdStream : public InputStream {
public:
  ~ZstdStream() override { ZSTD_freeDStream(stream_); }
  bool open(const std::string &path, std::string &error) {
    if (!file_.open(path, error))
      return false;
    stream_ = ZSTD_createDStream();
    if (!stream_) {
      error = "cannot start zstd for '" + path + "'";
      return false;
    }
    in_.resize(ZSTD_DStreamInSize());
    input_ = {in_.data(), 0, 0};
    return true;
  }
  bool read(char *out, size_t size, size_t &got, std::string &error) override {
    got = 0;
    while (got == 0) {
      if (input_.pos == input_.size) {
        size_t n = 0;
        if (!file_.read(in_.data(), in_.size(), n, error))
          return false;
        if (n == 0) {
          if (pending_ != 0) {
            error = "'" + file_.path() + "' ends inside a zstd frame (cut short?)";
            return false;
          }
          return true;
        }
        input_ = {in_.data(), n, 0};
      }
      ZSTD_outBuffer output{out, size, 0};
      pending_ = ZSTD_decompressStream(stream_, &output, &input_);
      if (ZSTD_isError(pending_)) {
        error =
            "'" + file_.path() + "' is not valid zstd data (" + ZSTD_getErrorName(pending_) + ")";
        return false;
      }
      got = output.pos;
    }
    return true;
  }
  uint64_t fileBytesRead() const override { return file_.consumed() - (input_.size - input_.pos); }

private:
  RawFile file_;
  ZSTD_DStream *stream_ = nullptr;
  std::vector<char> in_;
  ZSTD_inBuffer input_{};
  size_t pending_ = 0;
};

} // namespace

std::string withoutCompressionSuffix(const std::string &path) {
  if (endsWith(path, ".gz"))
    return path.substr(0, path.size() - 3);
  if (endsWith(path, ".zst"))
    return path.substr(0, path.size() - 4);
  return path;
}

std::unique_ptr<InputStream> openInputStream(const std::string &path, std::string &error) {
  if (endsWith(path, ".gz")) {
    auto s = std::make_unique<GzipStream>();
    return s->open(path, error) ? std::move(s) : nullptr;
  }
  if (endsWith(path, ".zst")) {
    auto s = std::make_unique<ZstdStream>();
    return s->open(path, error) ? std::move(s) : nullptr;
  }
  auto s = std::make_unique<PlainStream>();
  return s->open(path, error) ? std::move(s) : nullptr;
}

} // namespace mt
