//===- TempDir.h - a scratch directory per test ----------------*- C++ -*-===//
#ifndef MT_UNITTESTS_DATA_TEMPDIR_H
#define MT_UNITTESTS_DATA_TEMPDIR_H

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace mt::testing {

/// A fresh directory, removed with everything in it when the object dies.
class TempDir {
public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mt-data-test-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  /// Writes `bytes` to `name` and returns its path.
  std::string write(const std::string &name, const std::string &bytes) const {
    std::ofstream out(file(name), std::ios::binary);
    out << bytes;
    return file(name);
  }
  std::string read(const std::string &name) const {
    std::ifstream in(file(name), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

private:
  std::string path_;
};

} // namespace mt::testing

#endif // MT_UNITTESTS_DATA_TEMPDIR_H
