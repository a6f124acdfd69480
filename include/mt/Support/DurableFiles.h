//===- DurableFiles.h - files that survive a crash --------------*- C++ -*-===//
//
// Checkpoints and plans are written so that a crash or a full disk leaves
// either the old file or the new one, never a torn one: written whole,
// fsynced, renamed into place, and the directory fsynced. POSIX.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SUPPORT_DURABLEFILES_H
#define MT_SUPPORT_DURABLEFILES_H

#include <cstddef>
#include <string>

namespace mt {

/// A new, empty file to write (its descriptor), or -1 with `error`.
int createFile(const std::string &path, std::string &error);
/// Writes all `bytes`, retrying short writes.
bool writeAll(int fd, const void *data, size_t bytes, const std::string &path, std::string &error);
/// Fsyncs and closes `fd` (closed either way).
bool syncAndClose(int fd, const std::string &path, std::string &error);
/// Writes `bytes` to a new file at `path` and fsyncs it.
bool writeDurably(const std::string &path, const void *data, size_t bytes, std::string &error);
/// Fsyncs a directory, so the entries made in it last.
bool syncDirectory(const std::string &path, std::string &error);
/// Writes `bytes` to `path` through a temporary beside it: fsynced, renamed
/// over `path`, and the directory fsynced. The temporary is removed on
/// failure.
bool replaceDurably(const std::string &path, const void *data, size_t bytes, std::string &error);

} // namespace mt

#endif // MT_SUPPORT_DURABLEFILES_H
