//===- SafeTensors.h - Hugging Face's safetensors files ---------*- C++ -*-===//
//
// The format (huggingface/safetensors): an 8-byte little-endian header
// length N; N bytes of JSON (an object: tensor name -> {"dtype", "shape",
// "data_offsets": [begin, end]}, plus an optional "__metadata__" object of
// strings), padded with spaces; then the tensors' bytes, little-endian, row
// major, offsets relative to the end of the header. The byte buffer is
// covered exactly: no holes, no overlaps.
//
// Reading checks every length and offset against the file before use and
// names the file, the tensor and what was expected. Writing follows what
// the reference writer produces: compact JSON, "__metadata__" first,
// tensors in name order, the header padded to a multiple of 8 bytes.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_SAFETENSORS_H
#define MT_CHECKPOINT_SAFETENSORS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mt {
namespace safetensors {

/// The reference implementation refuses headers over 100 MB.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct TensorInfo {
  std::string name;
  std::string dtype; // "F32", "BF16", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // in the byte buffer

  int64_t numElements() const;
};

struct Header {
  std::vector<TensorInfo> tensors; // in the order of their bytes
  std::map<std::string, std::string> metadata;
};

/// Bytes of one element of `dtype`, or 0 for a name the format does not have.
int64_t dtypeBytes(llvm::StringRef dtype);

/// Parses and checks a header: `json` (the N header bytes) describing a
/// byte buffer of `dataBytes`. `where` names the file in errors.
llvm::Expected<Header> parseHeader(llvm::StringRef json, uint64_t dataBytes, llvm::StringRef where);

/// A safetensors file opened for reading.
class Reader {
public:
  static llvm::Expected<Reader> open(const std::string &path);
  Reader(Reader &&other);
  Reader &operator=(Reader &&other) = delete;
  ~Reader();

  const Header &header() const { return header_; }
  const std::string &path() const { return path_; }
  /// The tensor named `name`, or null.
  const TensorInfo *find(llvm::StringRef name) const;
  /// A tensor's elements as f32: F32 as stored, F16 and BF16 widened
  /// exactly, F64 rounded to nearest. Other types are an error naming it.
  llvm::Expected<std::vector<float>> readF32(const TensorInfo &tensor) const;
  /// Rows [rowBegin, rowEnd) of the tensor's first dimension into `out`
  /// (resized; its memory reused from call to call), as readF32 converts.
  llvm::Error readRowsF32(const TensorInfo &tensor, int64_t rowBegin, int64_t rowEnd,
                          std::vector<float> &out) const;

private:
  Reader(std::string path, int fd, uint64_t dataStart, Header header)
      : path_(std::move(path)), fd_(fd), dataStart_(dataStart), header_(std::move(header)) {}

  std::string path_;
  int fd_ = -1;
  uint64_t dataStart_ = 0;
  Header header_;
  mutable std::vector<unsigned char> raw_; // the stored bytes of the last read
};

/// A tensor to write: its name and shape.
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numElements() const;
};

/// A safetensors file being written: the header first, then each tensor's
/// bytes at its place, in whatever order they are produced, so a writer
/// holds one tensor at a time. The tensors lie in name order. The file is
/// `path`.partial until finish() renames it into place; a writer destroyed
/// unfinished removes it.
class Writer {
public:
  /// `dtype`: "F32", "BF16" or "F16" (values rounded to nearest even).
  static llvm::Expected<Writer> create(const std::string &path, std::vector<TensorSpec> tensors,
                                       llvm::StringRef dtype,
                                       const std::map<std::string, std::string> &metadata);
  Writer(Writer &&other);
  Writer &operator=(Writer &&other) = delete;
  ~Writer();

  /// Writes tensor `name`'s values (its shape's element count of them).
  llvm::Error put(llvm::StringRef name, const std::vector<float> &values);
  /// Checks every tensor was put, fsyncs and renames the file into place.
  llvm::Error finish();
  /// Bytes of tensor data the file holds.
  uint64_t dataBytes() const { return dataBytes_; }

private:
  Writer(std::string path, int fd, std::string dtype) : path_(std::move(path)), fd_(fd), dtype_(std::move(dtype)) {}

  struct Place {
    uint64_t offset = 0;
    int64_t elements = 0;
    bool written = false;
  };
  std::string path_; // the final name
  int fd_ = -1;
  std::string dtype_;
  uint64_t dataStart_ = 0, dataBytes_ = 0;
  std::map<std::string, Place> places_;
};

} // namespace safetensors
} // namespace mt

#endif // MT_CHECKPOINT_SAFETENSORS_H
