//===- TensorShardTest.cpp - local -> global element positions -------------===//
#include "mt/Sharding/TensorShard.h"

#include <gtest/gtest.h>

using mt::TensorShard;

TEST(TensorShard, WholeTensorIsIdentity) {
  TensorShard s({2, 3});
  EXPECT_EQ(s.check(), "");
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(s.globalIndex(i), i);
}

TEST(TensorShard, ColumnPieceOfAMatrix) {
  // [4, 6] split over 3 along dim 1: rank 1 holds columns 2 and 3.
  TensorShard s = TensorShard({4, 6}).split(1, 3, 1);
  EXPECT_EQ(s.localShape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(s.globalIndex(0), 2);
  EXPECT_EQ(s.globalIndex(1), 3);
  EXPECT_EQ(s.globalIndex(2), 8);
}

TEST(TensorShard, SegmentedRowsOfQkv) {
  // [q; k; v] rows of 4 each (12 rows, 1 column) over 2 ranks: rank 1 holds
  // rows 2-3, 6-7 and 10-11.
  TensorShard s = TensorShard({12, 1}).split(0, 2, 1, 3);
  ASSERT_EQ(s.numLocalElements(), 6);
  std::vector<int64_t> expected = {2, 3, 6, 7, 10, 11};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(s.globalIndex(i), expected[static_cast<size_t>(i)]);
}

TEST(TensorShard, LayersAndSplitTogether) {
  // Stacked [4 layers, 4 rows]: layers 2-3, rows split over 2, rank 0.
  TensorShard s = TensorShard({4, 4}).layers(2, 4).split(1, 2, 0);
  EXPECT_EQ(s.localShape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(s.globalIndex(0), 8);
  EXPECT_EQ(s.globalIndex(1), 9);
  EXPECT_EQ(s.globalIndex(2), 12);
  EXPECT_EQ(s.globalIndex(3), 13);
}

TEST(TensorShard, RefusesUnevenSplits) {
  EXPECT_NE(TensorShard({5, 2}).split(0, 2, 0).check(), "");
  EXPECT_NE(TensorShard({12, 2}).split(0, 2, 2).check(), "");
  EXPECT_NE(TensorShard({6, 2}).split(0, 2, 0, 2).check(), ""); // 6 = 2 segments of 3
  EXPECT_NE(TensorShard({4, 4}).layers(1, 3).split(0, 2, 0).check(), "");
}
