//===- LinkTrafficTest.cpp - communication split by the links it crosses --===//
#include "mt/Plan/LinkTraffic.h"

#include <gtest/gtest.h>

using namespace mt;

TEST(MeshGroup, VariesOnlyTheMaskedAxes) {
  // Mesh [pp 2, dp 2, tp 4]: rank 13 is (1, 1, 1).
  EXPECT_EQ(meshGroup(13, 2, 2, 4, 4), (std::vector<int64_t>{12, 13, 14, 15}));
  EXPECT_EQ(meshGroup(13, 2, 2, 4, 2), (std::vector<int64_t>{9, 13}));
  EXPECT_EQ(meshGroup(13, 2, 2, 4, 1), (std::vector<int64_t>{5, 13}));
  EXPECT_EQ(meshGroup(13, 2, 2, 4, 6), (std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(meshGroup(13, 2, 2, 4, 0), (std::vector<int64_t>{13}));
}

TEST(LinkTraffic, GroupsWithinANodeStayInside) {
  LinkTraffic links(8);
  links.add("tp", {8, 9, 10, 11, 12, 13, 14, 15}, 2e6);
  links.add("dp", {8, 16}, 1e6);
  links.add("pipeline", {0, 64}, 0.5e6);
  links.add("nothing", {0, 64}, 0);
  EXPECT_EQ(links.describe(), "inside a node 2.000 MB (tp 2.000 MB), across nodes 1.500 MB "
                              "(dp 1.000 MB, pipeline 0.500 MB)");
}
