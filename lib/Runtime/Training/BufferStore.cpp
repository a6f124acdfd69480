//===- BufferStore.cpp - one rank's named buffers -------------------------===//
#include "mt/Runtime/Training/BufferStore.h"

namespace mt {

Buffer &BufferStore::ensure(const plan::TensorSpec &spec) {
  auto &slot = buffers_[spec.name()];
  if (!slot) {
    slot = std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                    dtypeBytes(spec.dtype()), memory_);
    noteAllocation(*slot, "buffer '" + spec.name() + "'");
    dtypes_[spec.name()] = spec.dtype();
  }
  return *slot;
}

std::unique_ptr<Buffer> BufferStore::make(const plan::TensorSpec &spec, const std::string &what) {
  auto b = std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                    dtypeBytes(spec.dtype()), memory_);
  noteAllocation(*b, what);
  dtypes_[spec.name()] = spec.dtype();
  return b;
}

void BufferStore::noteAllocation(const Buffer &buffer, const std::string &what) {
  if (!buffer.allocated() && allocationError_.empty())
    allocationError_ = what + ": " + buffer.allocationError();
}

Buffer *BufferStore::find(const std::string &name) const {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : it->second.get();
}

plan::DType BufferStore::dtype(const std::string &name) const {
  auto it = dtypes_.find(name);
  return it == dtypes_.end() ? plan::DTYPE_UNSPECIFIED : it->second;
}

double BufferStore::read(const std::string &name, int64_t i) const {
  Buffer &b = *find(name);
  return dtype(name) == plan::F64 ? b.as<double>()[i] : b.as<float>()[i];
}

void BufferStore::exchange(const std::string &name, std::unique_ptr<Buffer> &other) {
  std::swap(buffers_[name], other);
}

void BufferStore::exchange(const std::string &a, const std::string &b) {
  std::swap(buffers_[a], buffers_[b]);
}

std::vector<std::string> BufferStore::names() const {
  std::vector<std::string> out;
  for (const auto &[name, buffer] : buffers_)
    out.push_back(name);
  return out;
}

} // namespace mt
