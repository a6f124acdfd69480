//===- LossScalerTest.cpp - fp16's dynamic loss scale ----------------------===//
#include "mt/Runtime/Training/LossScaler.h"

#include <gtest/gtest.h>

using mt::LossScaler;

TEST(LossScaler, HalvesAfterHysteresisOverflows) {
  LossScaler s(1024, 1, /*window=*/1000, /*hysteresis=*/2);
  EXPECT_TRUE(s.update(true)); // tolerated
  EXPECT_EQ(s.scale(), 1024);
  EXPECT_TRUE(s.update(true)); // lowered
  EXPECT_EQ(s.scale(), 512);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 512);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 256);
}

TEST(LossScaler, DoublesAfterAWindowOfGoodSteps) {
  LossScaler s(8, 1, /*window=*/3, /*hysteresis=*/1);
  EXPECT_FALSE(s.update(false));
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 8);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 16);
  // An overflow restarts the count.
  s.update(false);
  s.update(false);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 8);
  s.update(false);
  s.update(false);
  EXPECT_EQ(s.scale(), 8);
  s.update(false);
  EXPECT_EQ(s.scale(), 16);
}

TEST(LossScaler, GoodStepsRestoreTheHysteresis) {
  LossScaler s(64, 1, /*window=*/2, /*hysteresis=*/2);
  EXPECT_TRUE(s.update(true)); // one overflow tolerated
  s.update(false);
  s.update(false); // window: doubles and forgets the overflow
  EXPECT_EQ(s.scale(), 128);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 128);
}

TEST(LossScaler, AnOverflowAtTheFloorIsNotAnswered) {
  LossScaler s(2, 1, /*window=*/100, /*hysteresis=*/1);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 1);
  EXPECT_FALSE(s.update(true)); // cannot go lower: the run diverges
  EXPECT_EQ(s.scale(), 1);
}

TEST(LossScaler, AConstantScaleNeverMoves) {
  LossScaler s(1024, 1024, /*window=*/0, /*hysteresis=*/2);
  EXPECT_FALSE(s.update(true));
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 1024);
}
