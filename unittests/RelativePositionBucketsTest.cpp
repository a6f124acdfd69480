//===- RelativePositionBucketsTest.cpp - T5's buckets vs Hugging Face's ---===//
#include "mt/Support/RelativePositionBuckets.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

/// Where Hugging Face's T5Attention._relative_position_bucket (32 buckets,
/// max_distance 128, in torch) changes bucket, walking distances upward from
/// -300: (first distance, bucket).
void expectSteps(bool bidirectional, const std::vector<std::pair<int64_t, int64_t>> &steps) {
  for (size_t s = 0; s < steps.size(); ++s) {
    int64_t end = s + 1 < steps.size() ? steps[s + 1].first : 301;
    for (int64_t d = steps[s].first; d < end; ++d)
      ASSERT_EQ(mt::relativePositionBucket(d, 32, bidirectional, 128), steps[s].second)
          << "distance " << d << (bidirectional ? " (bidirectional)" : " (causal)");
  }
}

TEST(RelativePositionBuckets, BidirectionalAsHuggingFace) {
  expectSteps(true, {{-300, 15}, {-90, 14}, {-63, 13}, {-45, 12}, {-31, 11}, {-22, 10}, {-15, 9},
                     {-11, 8},   {-7, 7},   {-6, 6},   {-5, 5},   {-4, 4},   {-3, 3},   {-2, 2},
                     {-1, 1},    {0, 0},    {1, 17},   {2, 18},   {3, 19},   {4, 20},   {5, 21},
                     {6, 22},    {7, 23},   {8, 24},   {12, 25},  {16, 26},  {23, 27},  {32, 28},
                     {46, 29},   {64, 30},  {91, 31}});
}

TEST(RelativePositionBuckets, CausalAsHuggingFace) {
  expectSteps(false, {{-300, 31}, {-112, 30}, {-98, 29}, {-86, 28}, {-76, 27}, {-66, 26}, {-58, 25},
                      {-51, 24},  {-45, 23},  {-39, 22}, {-34, 21}, {-30, 20}, {-26, 19}, {-23, 18},
                      {-20, 17},  {-18, 16},  {-15, 15}, {-14, 14}, {-13, 13}, {-12, 12}, {-11, 11},
                      {-10, 10},  {-9, 9},    {-8, 8},   {-7, 7},   {-6, 6},   {-5, 5},   {-4, 4},
                      {-3, 3},    {-2, 2},    {-1, 1},   {0, 0}});
}

TEST(RelativePositionBuckets, TableAndProblems) {
  std::vector<int32_t> table = mt::relativePositionBuckets(3, 4, 4, true, 5);
  EXPECT_EQ(table, (std::vector<int32_t>{1, 1, 0, 3, 3, 3}));
  EXPECT_EQ(mt::bucketCountProblem(2, true), "the bucket count must be even and >= 4, got 2");
  EXPECT_EQ(mt::bucketCountProblem(32, false), "");
  EXPECT_EQ(mt::maxDistanceProblem(32, true, 8),
            "max_distance must exceed the 8 exactly bucketed distances, got 8");
}

} // namespace
