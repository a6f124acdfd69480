//===- ShuffleTest.cpp - the portable shuffle -------------------------------===//
#include "mt/Data/Shuffle.h"

#include <algorithm>

#include <gtest/gtest.h>

using namespace mt;

namespace {

// SplitMix64's published outputs for seed 0 pin the generator.
TEST(Shuffle, SplitMix64ReferenceValues) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.next(), 0x06C45D188009454Full);
}

TEST(Shuffle, BelowStaysInRange) {
  SplitMix64 rng(42);
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 3000; ++i)
    ++counts[rng.below(3)];
  for (int c : counts)
    EXPECT_GT(c, 900);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(rng.below(1), 0u);
}

// Computed independently (Python) from the definition in Shuffle.h. These
// orders are part of the data contract: a run on any
// machine draws the same samples. Changing them changes every experiment.
TEST(Shuffle, PermutationIsPinned) {
  std::vector<int64_t> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  SplitMix64 rng(1234, 0);
  shuffle(values, rng);
  EXPECT_EQ(values, (std::vector<int64_t>{4, 5, 9, 6, 3, 2, 1, 8, 7, 0}));
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(Shuffle, StreamsDiffer) {
  SplitMix64 a(7, 0), b(7, 1);
  EXPECT_NE(a.next(), b.next());
}

} // namespace
