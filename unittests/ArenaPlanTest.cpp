//===- ArenaPlanTest.cpp - offsets of buffers in one arena -----------------===//
#include "mt/Memory/ArenaPlan.h"

#include <gtest/gtest.h>

#include <random>

using mt::BufferLifetime;

TEST(ArenaPlan, DisjointLifetimesShareBytes) {
  std::vector<BufferLifetime> buffers = {{100, 0, 1}, {100, 2, 3}, {100, 4, 5}};
  mt::ArenaPlan plan = mt::planArena(buffers, 64);
  EXPECT_EQ(plan.size, 100);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
}

TEST(ArenaPlan, OverlappingLifetimesStack) {
  std::vector<BufferLifetime> buffers = {{64, 0, 5}, {128, 1, 2}, {64, 2, 4}};
  mt::ArenaPlan plan = mt::planArena(buffers, 64);
  EXPECT_TRUE(mt::isValidPlan(buffers, plan));
  EXPECT_EQ(plan.size, 256);
  EXPECT_EQ(mt::peakLiveBytes(buffers), 256);
}

TEST(ArenaPlan, FillsGapsLeftByShortBuffers) {
  // A big buffer early, a big one late; two small ones alive across both
  // fit below them, and a third small one reuses the first big one's bytes.
  std::vector<BufferLifetime> buffers = {
      {1024, 0, 1}, {1024, 3, 4}, {64, 0, 4}, {64, 1, 3}, {512, 2, 2}};
  mt::ArenaPlan plan = mt::planArena(buffers, 64);
  EXPECT_TRUE(mt::isValidPlan(buffers, plan));
  EXPECT_EQ(plan.size, 1024 + 128);
}

TEST(ArenaPlan, EmptyPlan) {
  mt::ArenaPlan plan = mt::planArena({}, 64);
  EXPECT_EQ(plan.size, 0);
  EXPECT_TRUE(plan.offsets.empty());
}

TEST(ArenaPlan, RandomPlansAreValidAndNearTheBound) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> buffers;
    int n = 1 + static_cast<int>(random() % 40);
    for (int i = 0; i < n; ++i) {
      int64_t first = random() % 50;
      buffers.push_back({1 + static_cast<int64_t>(random() % 5000), first,
                         first + static_cast<int64_t>(random() % 20)});
    }
    mt::ArenaPlan plan = mt::planArena(buffers, 64);
    ASSERT_TRUE(mt::isValidPlan(buffers, plan)) << "trial " << trial;
    int64_t bound = mt::peakLiveBytes(buffers);
    EXPECT_GE(plan.size, bound);
    // Greedy by size stays close to the bound on such inputs (alignment
    // adds up to 63 bytes a buffer).
    EXPECT_LE(plan.size, 2 * bound + 64 * n) << "trial " << trial;
  }
}
