//===- InputStream.h - a corpus file's bytes, decompressed ------*- C++ -*-===//
//
// mt-data reads plain files, gzip (.gz, through zlib) and Zstandard (.zst,
// through libzstd) alike: the name's suffix says which. Concatenated gzip
// members and zstd frames are read one after another, as `zcat` does.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_INPUTSTREAM_H
#define MT_DATA_INPUTSTREAM_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mt {

class InputStream {
public:
  virtual ~InputStream() = default;
  /// Up to `size` bytes of the content into `out`; `got` 0 at the end.
  /// False with `error` (naming the file) when the file cannot be read or
  /// does not decompress.
  virtual bool read(char *out, size_t size, size_t &got, std::string &error) = 0;
  /// Bytes of the file itself consumed so far (compressed ones for .gz and
  /// .zst): progress against the file's size.
  virtual uint64_t fileBytesRead() const = 0;
};

/// Opens `path` by its suffix; null with `error`.
std::unique_ptr<InputStream> openInputStream(const std::string &path, std::string &error);

/// `path` without a .gz or .zst suffix (what the content's format is named by).
std::string withoutCompressionSuffix(const std::string &path);

} // namespace mt

#endif // MT_DATA_INPUTSTREAM_H
