//===- GradientSyncTest.cpp - sums of gradients over other ranks ----------===//
#include "mt/Runtime/Training/GradientSync.h"

#include "TrainingTestSupport.h"

#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

namespace {

/// One rank's trainer parts that GradientSync works with.
struct RankParts {
  RankPlace place;
  BufferStore buffers;
  ParameterStore params;
  FakeRunner runner{buffers};
  GradientSync sync{buffers, params, place, runner};

  RankParts(const plan::Plan &plan, int rank, Communicator &comm) {
    std::string error;
    EXPECT_TRUE(RankPlace::locate(plan, rank, comm.size(), place, error)) << error;
    place.comm = &comm;
    EXPECT_TRUE(params.layOut(plan, place, error)) << error;
    params.initialize(buffers, 1);
  }
  float *acc(const std::string &name) { return buffers.find(name)->as<float>(); }
};

} // namespace

TEST(GradientSync, ZeroThenSumOverDataParallelRanks) {
  plan::Plan plan = meshPlan(1, 2, 1);
  addParameter(plan, "w", {5});
  std::vector<std::vector<float>> after(2);
  onRanks(2, [&](int r, Communicator &comm) {
    RankParts parts(plan, r, comm);
    float *g = parts.acc("grad_acc:w");
    g[0] = 99;
    parts.sync.zero();
    EXPECT_EQ(g[0], 0.0f);
    for (int i = 0; i < 5; ++i)
      g[i] = static_cast<float>(i + 10 * r);
    std::string error;
    ASSERT_TRUE(parts.sync.reduce(error)) << error;
    after[r].assign(g, g + 5);
  });
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(after[r], (std::vector<float>{10, 12, 14, 16, 18}));
}

TEST(GradientSync, DistributedOptimizerKeepsThisRanksShardOfTheSum) {
  plan::Plan plan = meshPlan(1, 2, 1);
  plan.mutable_config()->mutable_parallel()->set_distributed_optimizer(true);
  addParameter(plan, "w", {5});
  std::vector<std::vector<float>> shards(2);
  onRanks(2, [&](int r, Communicator &comm) {
    RankParts parts(plan, r, comm);
    parts.sync.setDistributed(true);
    // Five elements over two ranks: shards of three, the last padded.
    parts.buffers.ensure(spec("grad_shard:w", {3}));
    float *g = parts.acc("grad_acc:w");
    for (int i = 0; i < 5; ++i)
      g[i] = static_cast<float>(i + 1) * (r + 1);
    std::string error;
    ASSERT_TRUE(parts.sync.reduce(error)) << error;
    float *s = parts.acc("grad_shard:w");
    shards[r].assign(s, s + 3);
  });
  EXPECT_EQ(shards[0], (std::vector<float>{3, 6, 9}));
  EXPECT_EQ(shards[1], (std::vector<float>{12, 15, 0}));
}

TEST(GradientSync, DistributedOptimizerNeedsShardsOfTheRightSize) {
  plan::Plan plan = meshPlan(1, 2, 1);
  addParameter(plan, "w", {5});
  std::vector<std::string> errors(2);
  onRanks(2, [&](int r, Communicator &comm) {
    RankParts parts(plan, r, comm);
    parts.sync.setDistributed(true);
    parts.buffers.ensure(spec("grad_shard:w", {2}));
    EXPECT_FALSE(parts.sync.reduce(errors[r]));
  });
  EXPECT_EQ(errors[0], "the plan's optimizer does not take 3-element shards of 'w'");
}

TEST(GradientSync, TiedCopiesOnTwoStagesGetTheirSum) {
  plan::Plan plan = meshPlan(2, 1, 1);
  addParameter(plan, "wte", {2, 2});
  for (int k = 0; k < 2; ++k) {
    plan::Stage &st = *plan.add_stages();
    st.set_index(k);
    st.add_parameters()->set_name("wte");
  }
  std::vector<float> after(2);
  onRanks(2, [&](int r, Communicator &comm) {
    RankParts parts(plan, r, comm);
    std::string name = "s" + std::to_string(r) + "/grad_acc:wte";
    float *g = parts.acc(name);
    for (int i = 0; i < 4; ++i)
      g[i] = static_cast<float>(r + 1);
    std::string error;
    ASSERT_TRUE(parts.sync.reduce(error)) << error;
    after[r] = g[3];
  });
  EXPECT_EQ(after[0], 3.0f);
  EXPECT_EQ(after[1], 3.0f);
}

TEST(GradientSync, TensorParallelPartialSumsAreCompleted) {
  plan::Plan plan = meshPlan(1, 1, 2);
  addParameter(plan, "ln.w", {3}).add_grad_partial_over(plan::TP);
  std::vector<float> after(2);
  onRanks(2, [&](int r, Communicator &comm) {
    RankParts parts(plan, r, comm);
    ASSERT_TRUE(parts.params.slices()[0].partialOverTp);
    float *g = parts.acc("grad_acc:ln.w");
    g[1] = static_cast<float>(r + 2);
    std::string error;
    ASSERT_TRUE(parts.sync.reduce(error)) << error;
    after[r] = g[1];
  });
  EXPECT_EQ(after[0], 5.0f);
  EXPECT_EQ(after[1], 5.0f);
}
