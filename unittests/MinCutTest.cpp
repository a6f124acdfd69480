//===- MinCutTest.cpp - minimum s-t cut ------------------------------------===//
#include "mt/Support/MinCut.h"

#include <gtest/gtest.h>

#include <cmath>

using mt::FlowGraph;

TEST(MinCut, ClassicNetwork) {
  // CLRS figure 26.1: maximum flow 23.
  FlowGraph g(6);
  g.addEdge(0, 1, 16);
  g.addEdge(0, 2, 13);
  g.addEdge(1, 3, 12);
  g.addEdge(2, 1, 4);
  g.addEdge(2, 4, 14);
  g.addEdge(3, 2, 9);
  g.addEdge(3, 5, 20);
  g.addEdge(4, 3, 7);
  g.addEdge(4, 5, 4);
  std::vector<bool> side;
  EXPECT_DOUBLE_EQ(g.minCut(0, 5, side), 23);
  // The smallest source side: {s, v1, v2, v4}.
  EXPECT_EQ(side, (std::vector<bool>{true, true, true, false, true, false}));
}

TEST(MinCut, InfiniteEdgesAreNeverCut) {
  // s -inf-> a -5-> b -inf-> t and s -2-> b: the cut takes a->b and s->b.
  FlowGraph g(4);
  g.addEdge(0, 1, FlowGraph::infinity);
  g.addEdge(1, 2, 5);
  g.addEdge(2, 3, FlowGraph::infinity);
  g.addEdge(0, 2, 2);
  std::vector<bool> side;
  EXPECT_DOUBLE_EQ(g.minCut(0, 3, side), 7);
  EXPECT_TRUE(side[1]);
  EXPECT_FALSE(side[2]);
}

TEST(MinCut, AllInfinitePathHasNoFiniteCut) {
  FlowGraph g(3);
  g.addEdge(0, 1, FlowGraph::infinity);
  g.addEdge(1, 2, FlowGraph::infinity);
  std::vector<bool> side;
  EXPECT_TRUE(std::isinf(g.minCut(0, 2, side)));
}

TEST(MinCut, DisconnectedSinkCostsNothing) {
  FlowGraph g(3);
  g.addEdge(0, 1, 3);
  std::vector<bool> side;
  EXPECT_DOUBLE_EQ(g.minCut(0, 2, side), 0);
  EXPECT_TRUE(side[1]);
  EXPECT_FALSE(side[2]);
}

TEST(MinCut, FractionalCapacities) {
  FlowGraph g(3);
  g.addEdge(0, 1, 0.25);
  g.addEdge(1, 2, 0.5);
  g.addEdge(0, 2, 1e-3);
  std::vector<bool> side;
  EXPECT_NEAR(g.minCut(0, 2, side), 0.251, 1e-12);
}
