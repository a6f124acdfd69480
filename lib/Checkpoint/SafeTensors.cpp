//===- SafeTensors.cpp - Hugging Face's safetensors files ------------------===//
#include "mt/Checkpoint/SafeTensors.h"

#include "mt/Support/Errors.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mt {
namespace safetensors {
namespace {

using llvm::Error;
using llvm::Expected;
using llvm::formatv;
using llvm::StringRef;

/// Shapes beyond this many elements are corruption (2^48, as plans).
constexpr int64_t kMaxElements = int64_t(1) << 48;

Error systemFailure(const std::string &what, const std::string &path) {
  return errorf("cannot {0} '{1}': {2}", what, path, std::strerror(errno));
}

Expected<int64_t> nonNegative(const llvm::json::Value &v, StringRef where, StringRef what) {
  std::optional<int64_t> n = v.getAsInteger();
  if (!n || *n < 0)
    return errorf("{0}: {1} must be a non-negative integer", where, what);
  return *n;
}

/// One entry of the header: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}.
Expected<TensorInfo> parseTensor(StringRef name, const llvm::json::Value &value, StringRef where) {
  std::string at = formatv("{0}: tensor '{1}'", where, name).str();
  const llvm::json::Object *entry = value.getAsObject();
  if (!entry)
    return errorf("{0} is not an object", at);
  for (const auto &[key, unused] : *entry)
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      return errorf("{0} has the unknown field '{1}'", at, StringRef(key));
  TensorInfo t;
  t.name = name.str();
  std::optional<StringRef> dtype = entry->getString("dtype");
  if (!dtype || dtypeBytes(*dtype) == 0)
    return errorf("{0} has no dtype the format knows (F32, F16, BF16, F64, I64, ...)", at);
  t.dtype = dtype->str();
  const llvm::json::Array *shape = entry->getArray("shape");
  if (!shape)
    return errorf("{0} has no shape", at);
  int64_t elements = 1;
  for (const llvm::json::Value &d : *shape) {
    Expected<int64_t> size = nonNegative(d, at, "each dimension");
    if (!size)
      return size.takeError();
    if (*size > 0 && elements > kMaxElements / *size)
      return errorf("{0} has more than 2^48 elements", at);
    elements *= *size;
    t.shape.push_back(*size);
  }
  const llvm::json::Array *offsets = entry->getArray("data_offsets");
  if (!offsets || offsets->size() != 2)
    return errorf("{0} needs data_offsets [begin, end]", at);
  Expected<int64_t> begin = nonNegative((*offsets)[0], at, "data_offsets");
  Expected<int64_t> end =
      begin ? nonNegative((*offsets)[1], at, "data_offsets") : Expected<int64_t>(begin.takeError());
  if (!end)
    return end.takeError();
  t.begin = static_cast<uint64_t>(*begin);
  t.end = static_cast<uint64_t>(*end);
  uint64_t expected = static_cast<uint64_t>(elements * dtypeBytes(t.dtype));
  if (t.end < t.begin || t.end - t.begin != expected)
    return errorf("{0}: data_offsets [{1}, {2}] hold {3} bytes, but {4} elements of {5} "
                  "need {6}",
                  at, t.begin, t.end, t.end < t.begin ? 0 : t.end - t.begin, elements, t.dtype,
                  expected);
  return t;
}

/// IEEE half -> float, exactly (subnormals, infinities and NaNs included).
float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? std::nanf("") : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

Error readFully(int fd, uint64_t offset, void *dst, size_t bytes, const std::string &path) {
  auto *p = static_cast<unsigned char *>(dst);
  while (bytes > 0) {
    ssize_t n = ::pread(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return systemFailure("read", path);
    if (n == 0)
      return errorf("'{0}' ended early: it was truncated while open", path);
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
  return Error::success();
}

} // namespace

int64_t TensorInfo::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t dtypeBytes(StringRef dtype) {
  return llvm::StringSwitch<int64_t>(dtype)
      .Cases({"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3"}, 1)
      .Cases({"I16", "U16", "F16", "BF16"}, 2)
      .Cases({"I32", "U32", "F32"}, 4)
      .Cases({"I64", "U64", "F64"}, 8)
      .Default(0);
}

Expected<Header> parseHeader(StringRef json, uint64_t dataBytes, StringRef where) {
  Expected<llvm::json::Value> parsed = llvm::json::parse(json.rtrim(' '));
  if (!parsed)
    return errorf("{0}: the header is not JSON: {1}", where, llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return errorf("{0}: the header is not a JSON object", where);
  Header header;
  for (const auto &[key, value] : *root) {
    if (key == "__metadata__") {
      const llvm::json::Object *meta = value.getAsObject();
      if (!meta)
        return errorf("{0}: __metadata__ is not an object of strings", where);
      for (const auto &[mk, mv] : *meta) {
        std::optional<StringRef> text = mv.getAsString();
        if (!text)
          return errorf("{0}: __metadata__ '{1}' is not a string", where, StringRef(mk));
        header.metadata[mk.str()] = text->str();
      }
      continue;
    }
    Expected<TensorInfo> t = parseTensor(key, value, where);
    if (!t)
      return t.takeError();
    header.tensors.push_back(std::move(*t));
  }
  // The buffer is covered exactly, in order of offsets.
  std::sort(header.tensors.begin(), header.tensors.end(),
            [](const TensorInfo &a, const TensorInfo &b) {
              return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
            });
  uint64_t covered = 0;
  for (const TensorInfo &t : header.tensors) {
    if (t.begin != covered)
      return errorf("{0}: tensor '{1}' starts at byte {2} of the data, but the tensors before "
                    "it end at {3} ({4})",
                    where, t.name, t.begin, covered, t.begin > covered ? "a hole" : "an overlap");
    covered = t.end;
  }
  if (covered != dataBytes)
    return errorf("{0}: the tensors cover {1} bytes of data, but the file holds {2} after its "
                  "header",
                  where, covered, dataBytes);
  return header;
}

Expected<Reader> Reader::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return systemFailure("open", path);
  auto fail = [&](Error e) -> Expected<Reader> {
    ::close(fd);
    return std::move(e);
  };
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fail(systemFailure("stat", path));
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < 8)
    return fail(errorf("'{0}' holds {1} bytes: a safetensors file starts with an 8-byte header "
                       "length",
                       path, size));
  unsigned char lengthBytes[8];
  if (Error e = readFully(fd, 0, lengthBytes, 8, path))
    return fail(std::move(e));
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = length << 8 | lengthBytes[i];
  if (length > kMaxHeaderBytes || length > size - 8)
    return fail(errorf("'{0}': the header length at offset 0 says {1} bytes, but the file "
                       "holds {2} after it (and headers stop at {3})",
                       path, length, size - 8, kMaxHeaderBytes));
  std::string json(length, '\0');
  if (Error e = readFully(fd, 8, json.data(), length, path))
    return fail(std::move(e));
  if (json.empty() || json[0] != '{')
    return fail(errorf("'{0}': the header at offset 8 does not start with '{{'", path));
  Expected<Header> header = parseHeader(json, size - 8 - length, "'" + path + "'");
  if (!header)
    return fail(header.takeError());
  return Reader(path, fd, 8 + length, std::move(*header));
}

Reader::Reader(Reader &&other)
    : path_(std::move(other.path_)), fd_(other.fd_), dataStart_(other.dataStart_),
      header_(std::move(other.header_)) {
  other.fd_ = -1;
}

Reader::~Reader() {
  if (fd_ >= 0)
    ::close(fd_);
}

const TensorInfo *Reader::find(StringRef name) const {
  for (const TensorInfo &t : header_.tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

Expected<std::vector<float>> Reader::readF32(const TensorInfo &t) const {
  std::vector<float> out;
  int64_t rows = t.shape.empty() ? 1 : t.shape[0];
  if (Error e = readRowsF32(t, 0, rows, out))
    return std::move(e);
  return out;
}

Error Reader::readRowsF32(const TensorInfo &t, int64_t rowBegin, int64_t rowEnd,
                          std::vector<float> &out) const {
  int64_t rows = t.shape.empty() ? 1 : t.shape[0];
  int64_t bytes = dtypeBytes(t.dtype);
  if (rowBegin < 0 || rowEnd > rows || rowBegin > rowEnd)
    return errorf("'{0}': rows [{1}, {2}) of tensor '{3}' are not among its {4}", path_, rowBegin,
                  rowEnd, t.name, rows);
  int64_t rowElements = rows ? t.numElements() / rows : 0;
  int64_t n = (rowEnd - rowBegin) * rowElements;
  if (t.dtype != "F32" && t.dtype != "BF16" && t.dtype != "F16" && t.dtype != "F64")
    return errorf("'{0}': tensor '{1}' is {2}; parameters are read from F32, F16, BF16 or F64",
                  path_, t.name, t.dtype);
  raw_.resize(static_cast<size_t>(n * bytes));
  if (Error e = readFully(fd_, dataStart_ + t.begin + rowBegin * rowElements * bytes, raw_.data(),
                          raw_.size(), path_))
    return e;
  out.resize(static_cast<size_t>(n));
  const unsigned char *raw = raw_.data();
  // The format is little-endian, as is every machine mtc runs on.
  if (t.dtype == "F32") {
    std::memcpy(out.data(), raw, raw_.size());
  } else if (t.dtype == "BF16") {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t bits = static_cast<uint32_t>(raw[2 * i] | raw[2 * i + 1] << 8) << 16;
      std::memcpy(&out[i], &bits, 4);
    }
  } else if (t.dtype == "F16") {
    for (int64_t i = 0; i < n; ++i)
      out[i] = halfToFloat(static_cast<uint16_t>(raw[2 * i] | raw[2 * i + 1] << 8));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, raw + 8 * i, 8);
      out[i] = static_cast<float>(d);
    }
  }
  return Error::success();
}

} // namespace safetensors
} // namespace mt
