//===- RuntimeTest.cpp - initializer and learning-rate schedule ------------===//
#include "mt/Runtime/Code/Initializer.h"
#include "mt/Runtime/Training/LrSchedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

TEST(Initializer, ValuesDependOnlyOnNameSeedAndIndex) {
  uint64_t key = mt::parameterKey(1234, "h.attn.qkv.weight");
  std::vector<float> whole(1000), tail(400);
  mt::initializeRange(mt::InitKind::Normal, 0.02, key, 0, 1000, whole.data());
  // A shard holding elements [600, 1000) draws exactly the same values.
  mt::initializeRange(mt::InitKind::Normal, 0.02, key, 600, 1000, tail.data());
  for (int i = 0; i < 400; ++i)
    EXPECT_EQ(whole[600 + i], tail[i]);
  EXPECT_NE(mt::parameterKey(1234, "wte"), key);
  EXPECT_NE(mt::parameterKey(1235, "h.attn.qkv.weight"), key);
}

TEST(Initializer, NormalHasTheRequestedMoments) {
  uint64_t key = mt::parameterKey(7, "w");
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double v = mt::initialValue(mt::InitKind::Normal, 0.02, key, i);
    sum += v;
    sq += v * v;
  }
  EXPECT_NEAR(sum / n, 0.0, 3 * 0.02 / std::sqrt(n) * 2);
  EXPECT_NEAR(std::sqrt(sq / n), 0.02, 0.0002);
}

TEST(Initializer, ConstantKinds) {
  EXPECT_EQ(mt::initialValue(mt::InitKind::Zeros, 0.02, 1, 5), 0.0);
  EXPECT_EQ(mt::initialValue(mt::InitKind::Ones, 0.02, 1, 5), 1.0);
}

TEST(LrSchedule, WarmupThenCosine) {
  mt::LrSchedule s{1e-3, 1e-4, 10, 110, mt::LrSchedule::Decay::Cosine};
  EXPECT_DOUBLE_EQ(s.at(1), 1e-4);
  EXPECT_DOUBLE_EQ(s.at(10), 1e-3);
  EXPECT_NEAR(s.at(60), 1e-4 + 0.5 * (1e-3 - 1e-4), 1e-15);
  EXPECT_DOUBLE_EQ(s.at(110), 1e-4);
  EXPECT_DOUBLE_EQ(s.at(500), 1e-4);
}

TEST(LrSchedule, LinearAndConstant) {
  mt::LrSchedule linear{1.0, 0.0, 0, 100, mt::LrSchedule::Decay::Linear};
  EXPECT_DOUBLE_EQ(linear.at(25), 0.75);
  mt::LrSchedule constant{0.5, 0.0, 4, 100, mt::LrSchedule::Decay::Constant};
  EXPECT_DOUBLE_EQ(constant.at(2), 0.25);
  EXPECT_DOUBLE_EQ(constant.at(50), 0.5);
}

} // namespace
