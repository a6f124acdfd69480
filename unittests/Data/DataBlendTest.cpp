//===- DataBlendTest.cpp - datasets mixed by weight -------------------------===//
#include "mt/Data/DataBlend.h"

#include <cmath>

#include <gtest/gtest.h>

using namespace mt;

namespace {

TEST(DataBlend, ParsesWeightedAndUnweightedLists) {
  DataBlend blend;
  std::string error;
  ASSERT_TRUE(parseDataBlend({"3", "web", "5", "code", "2", "books"}, blend, error)) << error;
  EXPECT_EQ(blend.prefixes, (std::vector<std::string>{"web", "code", "books"}));
  ASSERT_EQ(blend.weights.size(), 3u);
  EXPECT_DOUBLE_EQ(blend.weights[0], 0.3);
  EXPECT_DOUBLE_EQ(blend.weights[1], 0.5);
  EXPECT_DOUBLE_EQ(blend.weights[2], 0.2);

  ASSERT_TRUE(parseDataBlend({"web", "code"}, blend, error)) << error;
  EXPECT_EQ(blend.prefixes.size(), 2u);
  EXPECT_TRUE(blend.weights.empty());
  // One word is a dataset even when it reads as a number.
  ASSERT_TRUE(parseDataBlend({"2023"}, blend, error)) << error;
  EXPECT_EQ(blend.prefixes[0], "2023");
}

TEST(DataBlend, RefusesMalformedLists) {
  DataBlend blend;
  std::string error;
  EXPECT_FALSE(parseDataBlend({}, blend, error));
  EXPECT_FALSE(parseDataBlend({"0.5", "web", "0.5"}, blend, error));
  EXPECT_NE(error.find("has no partner"), std::string::npos) << error;
  EXPECT_FALSE(parseDataBlend({"0.5", "web", "code", "books"}, blend, error));
  EXPECT_NE(error.find("'code' (word 3) is not a weight"), std::string::npos) << error;
  EXPECT_FALSE(parseDataBlend({"0", "web", "0", "code"}, blend, error));
  EXPECT_NE(error.find("at least one must be positive"), std::string::npos) << error;
  EXPECT_FALSE(parseDataBlend({"-1", "web", "2", "code"}, blend, error));
  EXPECT_FALSE(parseDataBlend({"web", "0.5", "code"}, blend, error));
  EXPECT_NE(error.find("looks like a weight"), std::string::npos) << error;
  EXPECT_FALSE(parseDataBlend({"0.5", "0.5", "0.5", "web"}, blend, error));
  EXPECT_FALSE(parseDataBlend({"inf", "web", "0.5", "code"}, blend, error));
}

// Worked by hand from the rule: weights 0.5, 0.3, 0.2.
TEST(DataBlend, FollowsTheGreedyRule) {
  BlendingIndex index = buildBlendingIndex({0.5, 0.3, 0.2}, 10);
  EXPECT_EQ(index.dataset.toVector(), (std::vector<int16_t>{0, 1, 2, 0, 1, 0, 2, 0, 1, 0}));
  EXPECT_EQ(index.sample.toVector(), (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 1, 3, 2, 4}));
}

TEST(DataBlend, EveryPrefixKeepsTheWeights) {
  std::vector<double> weights{0.5, 0.3, 0.2};
  const int64_t n = 10000;
  BlendingIndex index = buildBlendingIndex(weights, n);
  std::vector<int64_t> counts(3, 0);
  for (int64_t i = 0; i < n; ++i) {
    int16_t d = index.dataset[i];
    EXPECT_EQ(index.sample[i], counts[d]); // each dataset's samples in order
    ++counts[d];
    if ((i + 1) % 1000 != 0)
      continue;
    for (size_t k = 0; k < 3; ++k)
      EXPECT_LE(std::fabs(counts[k] / double(i + 1) - weights[k]), 0.01) << "prefix " << i + 1;
  }
}

TEST(DataBlend, SizesCarryMegatronsMargin) {
  EXPECT_EQ(blendedDatasetSizes({0.5, 0.3, 0.2}, 1000), (std::vector<int64_t>{503, 302, 201}));
  EXPECT_EQ(blendedDatasetSizes({1.0}, 0), (std::vector<int64_t>{0}));
}

} // namespace
