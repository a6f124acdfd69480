//===- FuzzFiles.h - fuzz inputs as the files the readers open -*- C++ -*-===//
//
// The readers under test open paths, as mt-run does. Each fuzzer process
// gets a private directory (under TMPDIR) and writes each input's files
// there before calling the reader.
//
//===----------------------------------------------------------------------===//
#ifndef MT_FUZZ_FUZZFILES_H
#define MT_FUZZ_FUZZFILES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace mt::fuzz {

/// This process's scratch directory (created once).
const std::string &scratchDir();

/// Writes `bytes` to `path` (replacing it); aborts when it cannot, since a
/// fuzzer that silently tests nothing is worse than one that stops.
void writeFile(const std::string &path, std::string_view bytes);

/// Splits an input in two at a length read from its first 4 bytes (little
/// endian, taken modulo the rest's size + 1), so one input can hold two files.
std::pair<std::string_view, std::string_view> splitInTwo(const uint8_t *data, size_t size);

} // namespace mt::fuzz

#endif // MT_FUZZ_FUZZFILES_H
