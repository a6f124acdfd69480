//===- DurableFiles.cpp - files that survive a crash -----------------------===//
#include "mt/Support/DurableFiles.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mt {

int createFile(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    error = "cannot create '" + path + "': " + std::strerror(errno);
  return fd;
}

bool writeAll(int fd, const void *data, size_t bytes, const std::string &path, std::string &error) {
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + path + "': " + std::strerror(errno);
      return false;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

bool syncAndClose(int fd, const std::string &path, std::string &error) {
  bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) {
    error = "cannot flush '" + path + "' to disk: " + std::strerror(errno);
    return false;
  }
  return true;
}

bool writeDurably(const std::string &path, const void *data, size_t bytes, std::string &error) {
  int fd = createFile(path, error);
  if (fd < 0)
    return false;
  if (!writeAll(fd, data, bytes, path, error)) {
    ::close(fd);
    return false;
  }
  return syncAndClose(fd, path, error);
}

bool syncDirectory(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    error = "cannot flush the directory '" + path + "' to disk: " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  ::close(fd);
  return true;
}

bool replaceDurably(const std::string &path, const void *data, size_t bytes, std::string &error) {
  std::string tmp = path + ".tmp";
  if (!writeDurably(tmp, data, bytes, error)) {
    std::remove(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot move '" + tmp + "' into place at '" + path + "': " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  return syncDirectory(dir, error);
}

} // namespace mt
