//===- ArenaPlan.h - offsets of buffers in one arena -----------*- C++ -*-===//
//
// A compiled function's temporary buffers live in one arena the runtime
// allocates once: each buffer gets an offset, and buffers whose lifetimes do
// not overlap share bytes. The arena's size is then known before anything
// runs, and is exactly what the runtime allocates. Plain C++ so the packing
// is unit-tested on its own.
//
//===----------------------------------------------------------------------===//
#ifndef MT_MEMORY_ARENAPLAN_H
#define MT_MEMORY_ARENAPLAN_H

#include <cstdint>
#include <vector>

namespace mt {

/// A buffer of `bytes`, alive from step `first` to step `last` (inclusive).
struct BufferLifetime {
  int64_t bytes = 0;
  int64_t first = 0, last = 0;
};

struct ArenaPlan {
  std::vector<int64_t> offsets; // per buffer, multiples of the alignment
  int64_t size = 0;             // bytes the arena needs: the end of its last buffer
};

/// Packs `buffers` greedily, largest first (ties: earliest first), each at
/// the lowest aligned offset free for its whole lifetime.
ArenaPlan planArena(const std::vector<BufferLifetime> &buffers, int64_t alignment);

/// The most bytes alive at any step: no arena is smaller.
int64_t peakLiveBytes(const std::vector<BufferLifetime> &buffers);

/// True when no two buffers alive at the same step share a byte.
bool isValidPlan(const std::vector<BufferLifetime> &buffers, const ArenaPlan &plan);

} // namespace mt

#endif // MT_MEMORY_ARENAPLAN_H
