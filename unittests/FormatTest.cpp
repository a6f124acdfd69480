//===- FormatTest.cpp - number formatting for reports ----------------------===//
#include "mt/Support/Format.h"

#include <gtest/gtest.h>

TEST(Format, Thousands) {
  EXPECT_EQ(mt::withThousands(0), "0");
  EXPECT_EQ(mt::withThousands(999), "999");
  EXPECT_EQ(mt::withThousands(1000), "1,000");
  EXPECT_EQ(mt::withThousands(124439808), "124,439,808");
  EXPECT_EQ(mt::withThousands(-1234567), "-1,234,567");
}

TEST(Format, Shape) {
  EXPECT_EQ(mt::shapeToString({12, 768}), "12x768");
  EXPECT_EQ(mt::shapeToString({}), "scalar");
}

TEST(Format, Bytes) {
  EXPECT_EQ(mt::humanBytes(512), "512 B");
  EXPECT_EQ(mt::humanBytes(1536), "1.50 KiB");
  EXPECT_EQ(mt::humanBytes(3 * 1024 * 1024), "3.00 MiB");
}
