//===- OverlappedReduction.cpp - gradient all-reduce beside the backward ---===//
#include "mt/Runtime/Comm/OverlappedReduction.h"

#include <algorithm>
#include <chrono>

namespace mt {

OverlappedReduction::~OverlappedReduction() {
  if (!worker_.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void OverlappedReduction::start(std::vector<Slice> slices, std::vector<int64_t> bySignal) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!worker_.joinable()) {
      slices_.clear();
      ready_.clear();
      abandoned_ = closed_ = false;
      error_.clear();
    }
    int64_t base = static_cast<int64_t>(slices_.size());
    for (int64_t &k : bySignal)
      if (k >= 0)
        k += base;
    bySignal_ = std::move(bySignal);
    for (Slice &s : slices)
      slices_.push_back(std::move(s));
    ready_.resize(slices_.size(), false);
  }
  if (!worker_.joinable())
    worker_ = std::thread([this] { run(); });
}

void OverlappedReduction::ready(int64_t index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (index < 0 || index >= static_cast<int64_t>(bySignal_.size()) || bySignal_[index] < 0)
      return;
    ready_[static_cast<size_t>(bySignal_[index])] = true;
  }
  changed_.notify_all();
}

void OverlappedReduction::run() {
  for (size_t k = 0;; ++k) {
    Slice slice;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] {
        return abandoned_ || (k < ready_.size() && ready_[k]) || (closed_ && k >= slices_.size());
      });
      if (abandoned_ || k >= slices_.size())
        return;
      slice = slices_[k];
    }
    std::string error;
    if (!reduce(slice, error)) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = error;
      return;
    }
  }
}

bool OverlappedReduction::reduce(const Slice &s, std::string &error) {
  if (!s.shard)
    return comm_.allReduce(group_, s.data, s.count, s.type, ReduceOp::Sum, s.what, error);
  // The slice's elements [offset, end) cut at the shard boundaries.
  int64_t end = s.offset + s.count, me = -1;
  std::vector<int64_t> counts;
  for (size_t i = 0; i < group_.ranks.size(); ++i) {
    int64_t first = static_cast<int64_t>(i) * s.shardElements;
    int64_t from = std::max(s.offset, first), to = std::min(end, first + s.shardElements);
    counts.push_back(std::max<int64_t>(0, to - from));
    if (group_.ranks[i] == comm_.rank())
      me = static_cast<int64_t>(i);
  }
  int64_t into = me < 0 ? 0 : std::max<int64_t>(0, s.offset - me * s.shardElements);
  auto *out = static_cast<unsigned char *>(s.shard) + into * elementBytes(s.type);
  return comm_.reduceScatter(group_, s.data, counts, out, s.type, ReduceOp::Sum, s.what, error);
}

bool OverlappedReduction::finish(double &waited, std::string &error) {
  auto begin = std::chrono::steady_clock::now();
  size_t missing = 0, total = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (bool r : ready_)
      missing += r ? 0 : 1;
    total = slices_.size();
    closed_ = true;
    // The step has returned: a slice it did not signal never will be.
    if (missing)
      abandoned_ = true;
  }
  changed_.notify_all();
  worker_.join();
  waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (!error_.empty()) {
    error = "overlapped gradient reduction: " + error_;
    return false;
  }
  if (missing) {
    error = "the step signalled " + std::to_string(total - missing) + " of the " +
            std::to_string(total) + " gradient slices it should (a plan out of step with its code)";
    return false;
  }
  return true;
}

} // namespace mt
