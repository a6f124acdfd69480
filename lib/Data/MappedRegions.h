//===- MappedRegions.h - a mapped file truncated under a run ----*- C++ -*-===//
//
// Datasets are mapped, not read: a file truncated while a run reads it makes
// the next read past its new end a SIGBUS, which would crash the run with no
// word on why. Mapped files register their ranges here; a SIGBUS inside one
// ends the process with an error naming the file and the offset, exit 1.
// A file rewritten in place (same inode, new size or time) is caught when
// the run asks (mappedFilesUnchanged, between steps).
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_DATA_MAPPEDREGIONS_H
#define MT_LIB_DATA_MAPPEDREGIONS_H

#include <cstddef>
#include <string>
#include <sys/stat.h>

namespace mt::mapped {

/// Registers [data, data + size), a mapping of `path` whose file is `info`.
void add(const void *data, size_t size, const std::string &path, const struct stat &info);
/// Forgets the mapping at `data`.
void remove(const void *data);

} // namespace mt::mapped

#endif // MT_LIB_DATA_MAPPEDREGIONS_H
