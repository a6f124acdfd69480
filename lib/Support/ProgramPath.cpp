//===- ProgramPath.cpp - files installed beside the running program --------===//
#include "mt/Support/ProgramPath.h"

#include <climits>
#include <unistd.h>

namespace mt {

std::string programDirectory() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    return "";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::string besideProgram(const std::string &relative) {
  std::string dir = programDirectory();
  return dir.empty() ? "" : dir + "/" + relative;
}

} // namespace mt
