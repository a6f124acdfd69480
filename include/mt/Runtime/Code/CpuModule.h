//===- CpuModule.h - calling compiled functions ----------------*- C++ -*-===//
//
// A shared object produced by mtc exports `mt_entry_<name>(void **args)`
// for each compiled function; args[i] points to the memref descriptor of
// argument i (inputs, then outputs, then the arena the function keeps its
// temporaries in). No MLIR dependency: mt-run uses this.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CODE_CPUMODULE_H
#define MT_RUNTIME_CODE_CPUMODULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// Where buffers live when not in host memory (a GPU's managed memory):
/// zeroed, host-addressable, at least 64-byte aligned.
class BufferMemory {
public:
  virtual ~BufferMemory() = default;
  /// Null with `error` on failure.
  virtual void *allocate(size_t bytes, std::string &error) = 0;
  virtual void release(void *pointer) = 0;
};

/// A dense, row-major, zero-initialized buffer and its memref descriptor.
class Buffer {
public:
  /// In host memory, or in `memory` when given; check allocated().
  Buffer(std::vector<int64_t> shape, int64_t elementBytes, BufferMemory *memory = nullptr);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  /// False (with allocationError()) when `memory` had no room.
  bool allocated() const { return data_ != nullptr; }
  const std::string &allocationError() const { return allocationError_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const { return numElements_; }
  void *data() { return data_; }
  template <typename T> T *as() { return reinterpret_cast<T *>(data()); }
  /// What the compiled code receives for this argument.
  void *descriptor() { return descriptor_.data(); }

private:
  std::vector<int64_t> shape_;
  int64_t numElements_;
  std::vector<unsigned char> storage_;
  BufferMemory *memory_ = nullptr;
  void *data_ = nullptr;
  std::string allocationError_;
  std::vector<int64_t> descriptor_;
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

#endif // MT_RUNTIME_CODE_CPUMODULE_H
