//===- ArenaPlan.cpp - offsets of buffers in one arena ---------------------===//
#include "mt/Memory/ArenaPlan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace mt {

namespace {

int64_t roundUp(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

bool overlapInTime(const BufferLifetime &a, const BufferLifetime &b) {
  return a.first <= b.last && b.first <= a.last;
}

} // namespace

ArenaPlan planArena(const std::vector<BufferLifetime> &buffers, int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    int64_t size = roundUp(buffers[i].bytes, alignment);
    // The placed buffers alive at the same time, by offset: take the first
    // gap that holds this one.
    std::vector<std::pair<int64_t, int64_t>> busy; // offset, end
    for (size_t j : placed)
      if (overlapInTime(buffers[i], buffers[j]))
        busy.emplace_back(plan.offsets[j], plan.offsets[j] + roundUp(buffers[j].bytes, alignment));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (begin - offset >= size)
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    // The arena ends where its last buffer does: alignment pads offsets,
    // not the end.
    plan.size = std::max(plan.size, offset + buffers[i].bytes);
    placed.push_back(i);
  }
  return plan;
}

int64_t peakLiveBytes(const std::vector<BufferLifetime> &buffers) {
  std::map<int64_t, int64_t> delta;
  for (const BufferLifetime &b : buffers) {
    delta[b.first] += b.bytes;
    delta[b.last + 1] -= b.bytes;
  }
  int64_t live = 0, peak = 0;
  for (auto [step, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return peak;
}

bool isValidPlan(const std::vector<BufferLifetime> &buffers, const ArenaPlan &plan) {
  if (plan.offsets.size() != buffers.size())
    return false;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (plan.offsets[i] < 0 || plan.offsets[i] + buffers[i].bytes > plan.size)
      return false;
    for (size_t j = i + 1; j < buffers.size(); ++j)
      if (overlapInTime(buffers[i], buffers[j]) &&
          plan.offsets[i] < plan.offsets[j] + buffers[j].bytes &&
          plan.offsets[j] < plan.offsets[i] + buffers[i].bytes)
        return false;
  }
  return true;
}

} // namespace mt
