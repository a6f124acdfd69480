//===- DeviceOverlappedReduction.cpp - gradient sums on a comm stream -----===//
#include "mt/Runtime/Comm/DeviceOverlappedReduction.h"

#include "mt/Runtime/Comm/ElementCombine.h"

#include <algorithm>
#include <chrono>

namespace mt {

void DeviceOverlappedReduction::start(std::vector<Slice> slices, std::vector<int64_t> bySignal) {
  if (!active_) {
    active_ = true;
    slices_.clear();
    done_.clear();
    error_.clear();
    if (gpu_ && !stream_ &&
        !(stream_ = gpu_->sideStream(DeviceCollectives::kReductionStream, error_)))
      error_ = "the gradients' reduction stream: " + error_;
  }
  batchStart_ = slices_.size();
  for (Slice &s : slices)
    slices_.push_back(std::move(s));
  done_.resize(slices_.size(), false);
  bySignal_ = std::move(bySignal);
}

void DeviceOverlappedReduction::ready(int64_t index) {
  if (!active_ || index < 0 || index >= static_cast<int64_t>(bySignal_.size()) ||
      bySignal_[static_cast<size_t>(index)] < 0 || !error_.empty())
    return;
  size_t n = batchStart_ + static_cast<size_t>(bySignal_[static_cast<size_t>(index)]);
  if (done_[n])
    return;
  done_[n] = true;
  const Slice &s = slices_[n];
  // After the kernels queued so far, the one that finished the slice among them.
  if (gpu_ && !gpu_->streamWait(stream_, gpu_->stream(), error_))
    return;
  if (!s.shard) {
    nccl_.allReduce(s.data, s.count, s.type, ReduceOp::Sum, mask_, stream_, s.what, error_);
    return;
  }
  // Member i's shard holds elements [i * shardElements, (i + 1) *
  // shardElements) of the accumulator; the slice covers [offset, end).
  int64_t end = s.offset + s.count, bytes = elementBytes(s.type);
  for (int64_t i = 0; i < members_ && error_.empty(); ++i) {
    int64_t first = i * s.shardElements;
    int64_t from = std::max(s.offset, first), to = std::min(end, first + s.shardElements);
    if (to <= from)
      continue;
    const auto *in = static_cast<const unsigned char *>(s.data) + (from - s.offset) * bytes;
    auto *out = static_cast<unsigned char *>(s.shard) + (i == me_ ? (from - first) * bytes : 0);
    nccl_.reduce(in, out, to - from, s.type, i, mask_, stream_, s.what, error_);
  }
}

bool DeviceOverlappedReduction::finish(double &waited, std::string &error) {
  waited = 0;
  if (!active_)
    return true;
  active_ = false;
  auto begin = std::chrono::steady_clock::now();
  bool ok = !gpu_ || !stream_ || gpu_->synchronizeStream(stream_, error);
  waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (!error_.empty()) {
    error = error_;
    return false;
  }
  for (size_t n = 0; ok && n < done_.size(); ++n)
    if (!done_[n]) {
      error = "the gradient slice " + slices_[n].what + " was never signalled final";
      return false;
    }
  return ok;
}

} // namespace mt
