//===- MeshShapeTest.cpp - device mesh geometry ----------------------------===//
#include "mt/Sharding/MeshShape.h"

#include <gtest/gtest.h>

using mt::MeshShape;

namespace {

// dp=2, pp=2, tp=2: tp varies fastest, as Megatron orders its ranks.
MeshShape megatronMesh() { return MeshShape({"dp", "pp", "tp"}, {2, 2, 2}); }

TEST(MeshShape, RankAndCoordsRoundTrip) {
  MeshShape mesh = megatronMesh();
  EXPECT_EQ(mesh.numRanks(), 8);
  for (int64_t r = 0; r < mesh.numRanks(); ++r)
    EXPECT_EQ(mesh.rank(mesh.coords(r)), r);
  EXPECT_EQ(mesh.coords(5), (std::vector<int64_t>{1, 0, 1}));
}

TEST(MeshShape, TensorParallelGroupsAreConsecutiveRanks) {
  MeshShape mesh = megatronMesh();
  EXPECT_EQ(mesh.groupOf(4, {"tp"}), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(mesh.groupOf(5, {"tp"}), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(mesh.groupOf(1, {"dp"}), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(mesh.groupOf(0, {"pp", "tp"}), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(MeshShape, IndexInGroupFollowsAxisOrder) {
  MeshShape mesh = megatronMesh();
  // rank 6 = (dp 1, pp 1, tp 0)
  EXPECT_EQ(mesh.indexInGroup(6, {"tp"}), 0);
  EXPECT_EQ(mesh.indexInGroup(6, {"pp", "tp"}), 2);
  EXPECT_EQ(mesh.indexInGroup(6, {"tp", "pp"}), 1);
  for (int64_t r = 0; r < mesh.numRanks(); ++r) {
    auto group = mesh.groupOf(r, {"dp", "tp"});
    EXPECT_EQ(group[mesh.indexInGroup(r, {"dp", "tp"})], r);
  }
}

TEST(MeshShape, GroupSizeIsProductOfAxes) {
  MeshShape mesh({"pp", "tp"}, {4, 2});
  EXPECT_EQ(mesh.groupSize({"tp"}), 2);
  EXPECT_EQ(mesh.groupSize({"pp", "tp"}), 8);
  EXPECT_EQ(mesh.groupSize({}), 1);
  EXPECT_EQ(mesh.groupSize({"sp"}), 0);
}

TEST(MeshShape, PeerStaysInsideTheAxis) {
  MeshShape mesh({"pp", "tp"}, {4, 2});
  EXPECT_EQ(mesh.peer(0, "pp", 1), 2);
  EXPECT_EQ(mesh.peer(3, "pp", 1), 5);
  EXPECT_EQ(mesh.peer(6, "pp", 1), std::nullopt);
  EXPECT_EQ(mesh.peer(1, "pp", -1), std::nullopt);
  EXPECT_EQ(mesh.peer(1, "dp", 1), std::nullopt);
}

TEST(MeshShape, AxisLookup) {
  MeshShape mesh = megatronMesh();
  EXPECT_EQ(mesh.axisIndex("pp"), 1u);
  EXPECT_EQ(mesh.axisSize("tp"), 2);
  EXPECT_EQ(mesh.axisSize("sp"), std::nullopt);
}

TEST(ShardSize, SplitsOnlyEvenly) {
  EXPECT_EQ(mt::shardSize(768, 4), 192);
  EXPECT_EQ(mt::shardSize(50257, 2), std::nullopt);
  EXPECT_EQ(mt::shardSize(8, 0), std::nullopt);
}

TEST(RoundUpToMultiple, MegatronVocabPadding) {
  EXPECT_EQ(mt::roundUpToMultiple(50257, 128), 50304);
  EXPECT_EQ(mt::roundUpToMultiple(50304, 128), 50304);
  EXPECT_EQ(mt::roundUpToMultiple(50257, 1), 50257);
  EXPECT_EQ(mt::roundUpToMultiple(50257, 128 * 8), 51200);
}

} // namespace
