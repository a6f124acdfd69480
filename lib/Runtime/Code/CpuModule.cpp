//===- CpuModule.cpp - calling compiled functions --------------------------===//
#include "mt/Runtime/Code/CpuModule.h"

#include <dlfcn.h>

namespace mt {

Buffer::Buffer(std::vector<int64_t> shape, int64_t elementBytes, BufferMemory *memory)
    : shape_(std::move(shape)) {
  numElements_ = 1;
  for (int64_t d : shape_)
    numElements_ *= d;
  size_t bytes = static_cast<size_t>(numElements_ * elementBytes);
  uintptr_t base, aligned;
  if (memory) {
    data_ = memory->allocate(bytes, allocationError_);
    if (data_)
      memory_ = memory;
    base = aligned = reinterpret_cast<uintptr_t>(data_);
  } else {
    // 64-byte aligned storage: over-allocate and let the descriptor's
    // aligned pointer skip ahead.
    storage_.assign(bytes + 64, 0);
    base = reinterpret_cast<uintptr_t>(storage_.data());
    aligned = (base + 63) & ~uintptr_t(63);
    data_ = storage_.data() + (aligned - base);
  }
  size_t rank = shape_.size();
  // {allocated, aligned, offset, sizes[rank], strides[rank]}
  descriptor_.assign(3 + 2 * rank, 0);
  descriptor_[0] = static_cast<int64_t>(base);
  descriptor_[1] = static_cast<int64_t>(aligned);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    descriptor_[3 + d] = shape_[d];
    descriptor_[3 + rank + d] = stride;
    stride *= shape_[d];
  }
}

Buffer::~Buffer() {
  if (memory_)
    memory_->release(data_);
}

CpuModule::~CpuModule() {
  if (handle_)
    dlclose(handle_);
}

bool CpuModule::load(const std::string &path, std::string &error) {
  // RTLD_NODELETE: the code's parallel loops run as coroutines on the MLIR
  // async runtime's process-wide thread pool, and a worker may still be in a
  // coroutine's last instructions when the caller's await has returned.
  // Unmapping the code then would crash that worker (a rank that finished
  // first took down a process of rank threads), so the code stays mapped.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle_) {
    const char *why = dlerror();
    error = "cannot load " + path + ": " + (why ? why : "unknown error");
    return false;
  }
  return true;
}

bool CpuModule::call(const std::string &name, const std::vector<Buffer *> &args,
                     std::string &error) {
  std::string symbol = "mt_entry_" + name;
  auto fn = reinterpret_cast<void (*)(void **)>(dlsym(handle_, symbol.c_str()));
  if (!fn) {
    error = "the compiled module has no function '" + name + "'";
    return false;
  }
  std::vector<void *> pointers;
  pointers.reserve(args.size());
  for (Buffer *b : args)
    pointers.push_back(b->descriptor());
  fn(pointers.data());
  return true;
}

} // namespace mt

void *mt::CpuModule::symbol(const std::string &name) const {
  return handle_ ? dlsym(handle_, name.c_str()) : nullptr;
}
