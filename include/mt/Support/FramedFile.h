//===- FramedFile.h - a payload behind a checked 32-byte header --*- C++ -*-===//
//
// Plans and checkpoint manifests are stored as
//   bytes 0-7   magic
//   bytes 8-15  format version (little-endian u64)
//   bytes 16-23 payload length in bytes (little-endian u64)
//   bytes 24-31 checksum of the payload (little-endian u64; each format
//               picks its hash)
// followed by the payload, so truncated, corrupted, foreign and newer files
// are told apart before parsing. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SUPPORT_FRAMEDFILE_H
#define MT_SUPPORT_FRAMEDFILE_H

#include <cstdint>
#include <string>

namespace mt {

inline constexpr size_t kFrameHeaderBytes = 32;

void putU64LE(std::string &out, uint64_t v);
uint64_t getU64LE(const std::string &in, size_t at);

/// The header then the payload.
std::string frame(const char (&magic)[8], uint64_t version, const std::string &payload,
                  uint64_t checksum);

struct FrameHeader {
  uint64_t version = 0, length = 0, checksum = 0;
};
/// False when `file` is shorter than a header or starts with another magic.
bool parseFrameHeader(const std::string &file, const char (&magic)[8], FrameHeader &out);

/// Reads the framed file at `path` and checks what every format shares: it
/// can be read, starts with `magic`, and holds exactly the payload its
/// header promises, which `payload` gets. Each format keeps its own version
/// and checksum rules. Messages name the file as `what` ("plan"); a file of
/// another magic "is not `notA`".
bool readFrame(const std::string &path, const char (&magic)[8], const std::string &what,
               const std::string &notA, FrameHeader &header, std::string &payload,
               std::string &error);

} // namespace mt

#endif // MT_SUPPORT_FRAMEDFILE_H
