//===- RankPlaceTest.cpp - a rank's coordinates, groups and pieces --------===//
#include "mt/Runtime/Training/RankPlace.h"

#include "TrainingTestSupport.h"

#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

TEST(RankPlace, CoordinatesAndGroupsOfA3DMesh) {
  plan::Plan plan = meshPlan(2, 2, 2);
  RankPlace place;
  std::string error;
  // Rank 5 of [pp 2, dp 2, tp 2] (row-major): pp 1, dp 0, tp 1.
  ASSERT_TRUE(RankPlace::locate(plan, 5, 8, place, error)) << error;
  EXPECT_EQ(place.ppIndex, 1);
  EXPECT_EQ(place.dpIndex, 0);
  EXPECT_EQ(place.tpIndex, 1);
  EXPECT_EQ(place.ppGroup.ranks, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(place.dpGroup.ranks, (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(place.tpGroup.ranks, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(place.numStages, 1); // no stages described: one
  // Stage 0 of this rank's data- and tensor-parallel coordinates.
  EXPECT_EQ(place.stageRank(0), 1);
  EXPECT_EQ(place.stageRank(1), 5);
}

TEST(RankPlace, VirtualStagesGoRoundThePipeline) {
  plan::Plan plan = meshPlan(2, 1, 1);
  for (int k = 0; k < 4; ++k)
    plan.add_stages()->set_index(k);
  RankPlace place;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(plan, 1, 2, place, error)) << error;
  EXPECT_EQ(place.numStages, 4);
  EXPECT_FALSE(place.runsStage(0));
  EXPECT_TRUE(place.runsStage(1));
  EXPECT_TRUE(place.runsStage(3));
  EXPECT_TRUE(place.isLastStage(3));
  EXPECT_EQ(place.stageRank(2), 0);
}

TEST(RankPlace, RefusesAnotherNumberOfRanks) {
  plan::Plan plan = meshPlan(2, 2, 2);
  RankPlace place;
  std::string error;
  EXPECT_FALSE(RankPlace::locate(plan, 0, 4, place, error));
  EXPECT_EQ(error, "the plan needs 8 ranks but runs on 4");
  EXPECT_FALSE(RankPlace::locate(plan, 8, 8, place, error));
  EXPECT_EQ(error, "rank 8 is outside the plan's 8 ranks");
}

TEST(RankPlace, ShardOfTakesLayersThenTheTensorParallelPiece) {
  plan::Plan plan = meshPlan(1, 1, 2);
  plan::Parameter &w = addParameter(plan, "h.w", {4, 6, 8});
  w.mutable_tp_shard()->set_dim(2);
  RankPlace place;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(plan, 1, 2, place, error)) << error;
  TensorShard shard = place.shardOf(w, 1, 3, place.tpIndex);
  EXPECT_EQ(shard.localShape(), (std::vector<int64_t>{2, 6, 4}));
  // The first local element: layer 1, row 0, column 4 of the global tensor.
  EXPECT_EQ(shard.globalIndex(0), 1 * 48 + 4);
}
