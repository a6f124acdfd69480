//===- SafeTensorsWriter.cpp - writes safetensors files a tensor at a time -===//
#include "mt/Checkpoint/SafeTensors.h"

#include "mt/Support/Errors.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mt {
namespace safetensors {
namespace {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

Error systemFailure(const std::string &what, const std::string &path) {
  return errorf("cannot {0} '{1}': {2}", what, path, std::strerror(errno));
}

std::string quoted(StringRef s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(s.str());
  return out;
}

uint16_t toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN stays NaN (quiet)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t toF16(float f) {
  _Float16 h = static_cast<_Float16>(f); // the compiler's IEEE rounding
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

Error writeAllAt(int fd, const void *data, size_t bytes, uint64_t offset, const std::string &path) {
  const auto *p = static_cast<const unsigned char *>(data);
  while (bytes > 0) {
    ssize_t n = ::pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return systemFailure("write", path);
    p += n;
    bytes -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Error::success();
}

} // namespace

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Expected<Writer> Writer::create(const std::string &path, std::vector<TensorSpec> tensors,
                                StringRef dtype, const std::map<std::string, std::string> &metadata) {
  if (dtype != "F32" && dtype != "BF16" && dtype != "F16")
    return errorf("safetensors files are written as F32, BF16 or F16, not {0}", dtype);
  std::sort(tensors.begin(), tensors.end(),
            [](const TensorSpec &a, const TensorSpec &b) { return a.name < b.name; });
  // Compact JSON with the keys in this order, as the reference writer emits.
  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    bool first = true;
    for (const auto &[k, v] : metadata) {
      json += (first ? "" : ",") + quoted(k) + ":" + quoted(v);
      first = false;
    }
    json += "}";
  }
  std::map<std::string, Place> places;
  uint64_t offset = 0, elementBytes = dtype == "F32" ? 4 : 2;
  for (const TensorSpec &t : tensors) {
    if (places.count(t.name))
      return errorf("'{0}': tensor '{1}' named twice", path, t.name);
    uint64_t bytes = static_cast<uint64_t>(t.numElements()) * elementBytes;
    json += (json.size() > 1 ? "," : "") + quoted(t.name) + ":{\"dtype\":\"" + dtype.str() +
            "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      json += (i ? "," : "") + std::to_string(t.shape[i]);
    json += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) +
            "]}";
    places[t.name] = {offset, t.numElements(), false};
    offset += bytes;
  }
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' ');

  std::string partial = path + ".partial";
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return systemFailure("create", partial);
  Writer w(path, fd, dtype.str());
  w.places_ = std::move(places);
  w.dataStart_ = 8 + json.size();
  w.dataBytes_ = offset;
  unsigned char length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<unsigned char>(static_cast<uint64_t>(json.size()) >> (8 * i));
  if (Error e = writeAllAt(fd, length, 8, 0, partial))
    return std::move(e);
  if (Error e = writeAllAt(fd, json.data(), json.size(), 8, partial))
    return std::move(e);
  return std::move(w);
}

Writer::Writer(Writer &&other)
    : path_(std::move(other.path_)), fd_(other.fd_), dtype_(std::move(other.dtype_)),
      dataStart_(other.dataStart_), dataBytes_(other.dataBytes_), places_(std::move(other.places_)) {
  other.fd_ = -1;
}

Writer::~Writer() {
  if (fd_ >= 0) { // unfinished: nothing half-written stays behind
    ::close(fd_);
    ::unlink((path_ + ".partial").c_str());
  }
}

Error Writer::put(StringRef name, const std::vector<float> &values) {
  auto it = places_.find(name.str());
  if (it == places_.end())
    return errorf("'{0}' has no tensor '{1}'", path_, name);
  Place &place = it->second;
  if (static_cast<int64_t>(values.size()) != place.elements)
    return errorf("tensor '{0}' has {1} values for a shape of {2} elements", name, values.size(),
                  place.elements);
  std::string partial = path_ + ".partial";
  uint64_t at = dataStart_ + place.offset;
  place.written = true;
  if (dtype_ == "F32")
    return writeAllAt(fd_, values.data(), values.size() * 4, at, partial);
  std::vector<uint16_t> narrow(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    narrow[i] = dtype_ == "BF16" ? toBf16(values[i]) : toF16(values[i]);
  return writeAllAt(fd_, narrow.data(), narrow.size() * 2, at, partial);
}

Error Writer::finish() {
  for (const auto &[name, place] : places_)
    if (!place.written)
      return errorf("'{0}': tensor '{1}' was never written", path_, name);
  std::string partial = path_ + ".partial";
  bool ok = ::fsync(fd_) == 0;
  ok = ::close(fd_) == 0 && ok;
  fd_ = -1;
  if (!ok || std::rename(partial.c_str(), path_.c_str()) != 0) {
    Error e = systemFailure("write", path_);
    std::remove(partial.c_str());
    return e;
  }
  return Error::success();
}

} // namespace safetensors
} // namespace mt
