//===- Files.h - reading whole files and mapping them ----------*- C++ -*-===//
#ifndef MT_DATA_FILES_H
#define MT_DATA_FILES_H

#include <cstddef>
#include <string>
#include <string_view>

namespace mt {

/// Reads all of `path` into `out`; false with "cannot read 'path': reason".
bool readFile(const std::string &path, std::string &out, std::string &error);

/// A file mapped read-only into memory for as long as the object lives.
class MappedFile {
public:
  MappedFile() = default;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  ~MappedFile();

  /// Maps `path`; false with "cannot open 'path': reason". An empty file maps
  /// to an empty view.
  bool open(const std::string &path, std::string &error);

  std::string_view bytes() const { return {static_cast<const char *>(data_), size_}; }
  size_t size() const { return size_; }

private:
  void close();
  void *data_ = nullptr;
  size_t size_ = 0;
};

/// False (with an error naming the file) when a file still mapped by a
/// MappedFile was rewritten in place since (the same file, another size or
/// modification time): its pages may now hold other data. Files removed or
/// replaced by another are fine: the mapping keeps the one opened.
bool mappedFilesUnchanged(std::string &error);

} // namespace mt

#endif // MT_DATA_FILES_H
