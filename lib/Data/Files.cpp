//===- Files.cpp - reading whole files and mapping them --------------------===//
#include "mt/Data/Files.h"

#include "MappedRegions.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mt {

bool readFile(const std::string &path, std::string &out, std::string &error) {
  MappedFile file;
  if (!file.open(path, error))
    return false;
  out.assign(file.bytes());
  return true;
}

MappedFile::MappedFile(MappedFile &&other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this != &other) {
    close();
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() { close(); }

void MappedFile::close() {
  if (data_) {
    mapped::remove(data_);
    munmap(data_, size_);
  }
  data_ = nullptr;
  size_ = 0;
}

bool MappedFile::open(const std::string &path, std::string &error) {
  close();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = "cannot open '" + path + "': not a regular file";
    ::close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(info.st_size);
  if (size > 0) {
    void *data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      error = "cannot map '" + path + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    data_ = data;
    size_ = size;
    mapped::add(data, size, path, info);
  }
  ::close(fd);
  return true;
}

} // namespace mt
