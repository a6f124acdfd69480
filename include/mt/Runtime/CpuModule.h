//===- CpuModule.h - calling compiled functions ----------------*- C++ -*-===//
//
// A shared object produced by mtc exports `mt_entry_<name>(void **args)`
// for each compiled function; args[i] points to the memref descriptor of
// argument i (inputs, then outputs, then the arena the function keeps its
// temporaries in). No MLIR dependency: mt-run uses this.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CPUMODULE_H
#define MT_RUNTIME_CPUMODULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// A dense, row-major buffer and its memref descriptor.
class Buffer {
public:
  Buffer(std::vector<int64_t> shape, int64_t elementBytes);

  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const { return numElements_; }
  void *data();
  template <typename T> T *as() { return reinterpret_cast<T *>(data()); }
  /// What the compiled code receives for this argument.
  void *descriptor() { return descriptor_.data(); }

private:
  std::vector<int64_t> shape_;
  int64_t numElements_;
  std::vector<unsigned char> storage_;
  std::vector<int64_t> descriptor_;
  size_t alignOffset_ = 0;
};

class CpuModule {
public:
  CpuModule() = default;
  CpuModule(const CpuModule &) = delete;
  ~CpuModule();

  /// Loads the shared object; false with `error` set on failure.
  bool load(const std::string &path, std::string &error);

  /// Calls `mt_entry_<name>` with `args` (inputs, then outputs); false with
  /// `error` set when the function does not exist.
  bool call(const std::string &name, const std::vector<Buffer *> &args, std::string &error);

  /// The address of an exported symbol, or null.
  void *symbol(const std::string &name) const;

private:
  void *handle_ = nullptr;
};

} // namespace mt

#endif // MT_RUNTIME_CPUMODULE_H
