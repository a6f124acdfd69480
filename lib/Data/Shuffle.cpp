//===- Shuffle.cpp - a specified, portable random permutation --------------===//
#include "mt/Data/Shuffle.h"

#include <cstddef>
#include <utility>

namespace mt {

SplitMix64::SplitMix64(uint64_t seed, uint64_t stream)
    : state_(seed ^ (0xD1B54A32D192ED03ull * (stream + 1))) {}

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t bound) {
  // 2^64 mod bound, computed in 64 bits as (-bound) mod bound.
  const uint64_t threshold = (0 - bound) % bound;
  while (true) {
    uint64_t r = next();
    if (r >= threshold)
      return r % bound;
  }
}

void shuffle(std::vector<int64_t> &values, SplitMix64 &rng) {
  for (size_t i = values.size(); i > 1; --i)
    std::swap(values[i - 1], values[rng.below(i)]);
}

} // namespace mt
