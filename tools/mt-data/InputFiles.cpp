//===- InputFiles.cpp - the files an --input list names --------------------===//
//
// Each word of --input is a file, a directory (every corpus file in it and
// below, by name: .jsonl, .json, .txt, each possibly .gz or .zst), or a
// glob pattern (glob(3)). Directories and patterns expand in sorted order,
// so the dataset does not depend on the file system's listing order.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "mt/Data/InputStream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

namespace mt::data_tool {

namespace {

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// Appends the corpus files under `dir`, recursively.
bool listDirectory(const std::string &dir, std::vector<std::string> &files, std::string &error) {
  DIR *d = opendir(dir.c_str());
  if (!d) {
    error = "cannot list '" + dir + "': " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> names;
  while (dirent *e = readdir(d))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
      names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
      continue; // a dangling link
    if (S_ISDIR(st.st_mode)) {
      if (!listDirectory(path, files, error))
        return false;
    } else if (S_ISREG(st.st_mode) && isCorpusFile(path)) {
      files.push_back(path);
    }
  }
  return true;
}

} // namespace

bool isCorpusFile(const std::string &path) {
  std::string plain = withoutCompressionSuffix(path);
  return endsWith(plain, ".jsonl") || endsWith(plain, ".json") || endsWith(plain, ".txt");
}

bool expandInputs(const std::vector<std::string> &words, std::vector<std::string> &files,
                  std::string &error) {
  files.clear();
  for (const std::string &word : words) {
    struct stat st;
    if (stat(word.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        files.push_back(word);
        continue;
      }
      size_t before = files.size();
      if (!listDirectory(word, files, error))
        return false;
      if (files.size() == before) {
        error = "directory '" + word + "' holds no .jsonl, .json or .txt file (or .gz, .zst)";
        return false;
      }
      continue;
    }
    if (word.find_first_of("*?[") == std::string::npos) {
      error = "cannot open '" + word + "': " + std::strerror(errno);
      return false;
    }
    glob_t matches;
    int rc = glob(word.c_str(), 0, nullptr, &matches);
    if (rc != 0) {
      globfree(&matches);
      error =
          rc == GLOB_NOMATCH ? "no file matches '" + word + "'" : "cannot expand '" + word + "'";
      return false;
    }
    for (size_t i = 0; i < matches.gl_pathc; ++i)
      files.push_back(matches.gl_pathv[i]); // glob sorts
    globfree(&matches);
  }
  for (size_t i = 0; i < files.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (files[i] == files[j]) {
        error = "'" + files[i] + "' is named twice";
        return false;
      }
  return true;
}

} // namespace mt::data_tool
