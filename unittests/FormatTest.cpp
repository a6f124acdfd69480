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

TEST(Format, ParseByteSize) {
  int64_t bytes = 0;
  std::string error;
  EXPECT_TRUE(mt::parseByteSize("2500000", bytes, error));
  EXPECT_EQ(bytes, 2500000);
  EXPECT_TRUE(mt::parseByteSize("2.5MB", bytes, error));
  EXPECT_EQ(bytes, 2500000);
  EXPECT_TRUE(mt::parseByteSize("64KiB", bytes, error));
  EXPECT_EQ(bytes, 65536);
  EXPECT_TRUE(mt::parseByteSize("1.5 GiB", bytes, error));
  EXPECT_EQ(bytes, 1610612736);
  EXPECT_TRUE(mt::parseByteSize("80G", bytes, error));
  EXPECT_EQ(bytes, 80000000000);
  for (const char *bad : {"", "MB", "-5", "1.2.3", "12 parsecs", "1e30", "99999999999TB"}) {
    EXPECT_FALSE(mt::parseByteSize(bad, bytes, error)) << bad;
    EXPECT_NE(error.find("is not a size in bytes"), std::string::npos);
  }
}
