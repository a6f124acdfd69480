//===- Shuffle.h - a specified, portable random permutation ----*- C++ -*-===//
//
// Sample order must be the same on every machine and compiler, so it does not
// use <random>'s distributions (whose algorithms the standard leaves open).
// The generator is SplitMix64 (Steele, Lea and Flood, 2014); bounded draws
// reject the biased low range; shuffles are Fisher-Yates from the end.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_SHUFFLE_H
#define MT_DATA_SHUFFLE_H

#include <cstdint>
#include <vector>

namespace mt {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /// A generator for one of several independent uses of one seed: the
  /// state starts at seed ^ (0xD1B54A32D192ED03 * (stream + 1)).
  SplitMix64(uint64_t seed, uint64_t stream);

  uint64_t next();
  /// Uniform in [0, bound), bound > 0, without modulo bias: draws below
  /// 2^64 mod bound are rejected.
  uint64_t below(uint64_t bound);

private:
  uint64_t state_;
};

/// Fisher-Yates: for i = n-1 down to 1, swap values[i] with values[below(i+1)].
void shuffle(std::vector<int64_t> &values, SplitMix64 &rng);

} // namespace mt

#endif // MT_DATA_SHUFFLE_H
