//===- FuzzFiles.cpp - fuzz inputs as the files the readers open ----------===//
#include "FuzzFiles.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace mt::fuzz {

const std::string &scratchDir() {
  static const std::string dir = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mt-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("mt fuzz: mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  return dir;
}

void writeFile(const std::string &path, std::string_view bytes) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
    std::perror(("mt fuzz: writing " + path).c_str());
    std::abort();
  }
}

std::pair<std::string_view, std::string_view> splitInTwo(const uint8_t *data, size_t size) {
  std::string_view all(reinterpret_cast<const char *>(data), size);
  if (size < 4)
    return {all, {}};
  uint32_t n = data[0] | data[1] << 8 | data[2] << 16 | static_cast<uint32_t>(data[3]) << 24;
  std::string_view rest = all.substr(4);
  size_t first = n % (rest.size() + 1);
  return {rest.substr(0, first), rest.substr(first)};
}

} // namespace mt::fuzz
