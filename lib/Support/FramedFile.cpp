//===- FramedFile.cpp - a payload behind a checked 32-byte header ----------===//
#include "mt/Support/FramedFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mt {

void putU64LE(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t getU64LE(const std::string &in, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(in[at + i]);
  return v;
}

std::string frame(const char (&magic)[8], uint64_t version, const std::string &payload,
                  uint64_t checksum) {
  std::string file(magic, sizeof magic);
  putU64LE(file, version);
  putU64LE(file, payload.size());
  putU64LE(file, checksum);
  return file + payload;
}

bool parseFrameHeader(const std::string &file, const char (&magic)[8], FrameHeader &out) {
  if (file.size() < kFrameHeaderBytes || std::memcmp(file.data(), magic, sizeof magic) != 0)
    return false;
  out.version = getU64LE(file, 8);
  out.length = getU64LE(file, 16);
  out.checksum = getU64LE(file, 24);
  return true;
}

bool readFrame(const std::string &path, const char (&magic)[8], const std::string &what,
               const std::string &notA, FrameHeader &header, std::string &payload,
               std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + what + " '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string file = buffer.str();
  if (!parseFrameHeader(file, magic, header)) {
    error = "'" + path + "' is not " + notA;
    return false;
  }
  if (file.size() - kFrameHeaderBytes != header.length) {
    error = "'" + path + "' is truncated or has trailing bytes: its header promises " +
            std::to_string(header.length) + " payload bytes, the file holds " +
            std::to_string(file.size() - kFrameHeaderBytes);
    return false;
  }
  payload = file.substr(kFrameHeaderBytes);
  return true;
}

} // namespace mt
