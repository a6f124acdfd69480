//===- ParameterStoreTest.cpp - parameter pieces, their values, gathering -===//
#include "mt/Runtime/Training/ParameterStore.h"

#include "TrainingTestSupport.h"

#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

namespace {

void hold(plan::Stage &stage, const std::string &name, int64_t begin = 0, int64_t end = 0) {
  plan::StageParameter &sp = *stage.add_parameters();
  sp.set_name(name);
  sp.set_layer_begin(begin);
  sp.set_layer_end(end);
}

/// A tied embedding on both stages of a two-stage pipeline and four
/// stacked layers cut in two.
plan::Plan twoStagePlan() {
  plan::Plan plan = meshPlan(2, 1, 1);
  plan.mutable_config()->set_seed(7);
  addParameter(plan, "wte", {8, 4});
  addParameter(plan, "h.w", {4, 2, 2}).set_stacked_layers(4);
  plan::Stage &s0 = *plan.add_stages();
  s0.set_index(0);
  hold(s0, "wte");
  hold(s0, "h.w", 0, 2);
  plan::Stage &s1 = *plan.add_stages();
  s1.set_index(1);
  hold(s1, "h.w", 2, 4);
  hold(s1, "wte");
  return plan;
}

} // namespace

TEST(ParameterStore, LaysOutLayersAndTiedCopies) {
  plan::Plan plan = twoStagePlan();
  RankPlace place;
  ParameterStore store;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(plan, 1, 2, place, error)) << error;
  ASSERT_TRUE(store.layOut(plan, place, error)) << error;
  ASSERT_EQ(store.slices().size(), 2u);
  const ParameterSlice &layers = store.slices()[0];
  EXPECT_EQ(layers.buffer, "s1/h.w");
  EXPECT_EQ(layers.accumulator, "s1/grad_acc:h.w");
  EXPECT_EQ(layers.shape, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_TRUE(layers.tiedRanks.empty());
  EXPECT_TRUE(layers.ownsNorm);
  const ParameterSlice &wte = store.slices()[1];
  EXPECT_EQ(wte.tiedRanks, (std::vector<int64_t>{0, 1}));
  // The first holder's copy counts in the gradient norm, this one not.
  EXPECT_FALSE(wte.ownsNorm);
  EXPECT_EQ(wte.named(buffers::Role::ExpAvg), "s1/exp_avg:wte");
}

TEST(ParameterStore, SlicesStartFromTheUnsplitModelsValues) {
  plan::Plan whole = twoStagePlan();
  whole.mutable_config()->mutable_parallel()->set_pipeline_parallel_size(1);
  whole.clear_stages();
  plan::Plan split = twoStagePlan();
  RankPlace wholePlace, splitPlace;
  ParameterStore wholeStore, splitStore;
  BufferStore wholeBuffers, splitBuffers;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(whole, 0, 1, wholePlace, error)) << error;
  ASSERT_TRUE(RankPlace::locate(split, 1, 2, splitPlace, error)) << error;
  ASSERT_TRUE(wholeStore.layOut(whole, wholePlace, error)) << error;
  ASSERT_TRUE(splitStore.layOut(split, splitPlace, error)) << error;
  wholeStore.initialize(wholeBuffers, 7);
  splitStore.initialize(splitBuffers, 7);
  const ParameterSlice &layers = splitStore.slices()[0];
  for (int64_t i = 0; i < layers.elements; ++i)
    EXPECT_EQ(splitBuffers.read("s1/h.w", i),
              wholeBuffers.read("h.w", layers.layout.globalIndex(i)));
  EXPECT_NE(splitBuffers.read("s1/h.w", 0), 0.0);
  // The accumulators are there, zeroed.
  EXPECT_EQ(splitBuffers.read("s1/grad_acc:h.w", 3), 0.0);
}

TEST(ParameterStore, RefusesAStageHoldingAnUnknownParameter) {
  plan::Plan plan = twoStagePlan();
  hold(*plan.mutable_stages(1), "nope");
  RankPlace place;
  ParameterStore store;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(plan, 1, 2, place, error)) << error;
  EXPECT_FALSE(store.layOut(plan, place, error));
  EXPECT_EQ(error, "stage 1 holds an unknown or out-of-range parameter 'nope'");
}

TEST(ParameterStore, GatherAssemblesTensorParallelPiecesOnRankZero) {
  plan::Plan plan = meshPlan(1, 1, 2);
  plan.mutable_config()->set_seed(3);
  addParameter(plan, "w", {2, 4}).mutable_tp_shard()->set_dim(1);
  plan::Plan whole = plan;
  whole.mutable_config()->mutable_parallel()->set_tensor_parallel_size(1);
  std::vector<double> gathered, expected;
  onRanks(2, [&](int r, Communicator &comm) {
    RankPlace place;
    ParameterStore store;
    BufferStore buffers;
    std::string error;
    ASSERT_TRUE(RankPlace::locate(plan, r, 2, place, error)) << error;
    place.comm = &comm;
    ASSERT_TRUE(store.layOut(plan, place, error)) << error;
    store.initialize(buffers, 3);
    EXPECT_EQ(buffers.find("w")->numElements(), 4);
    std::vector<double> out;
    ASSERT_TRUE(store.gather("", plan.parameters(0), buffers, out, error)) << error;
    if (r == 0)
      gathered = out;
    else
      EXPECT_TRUE(out.empty());
  });
  RankPlace place;
  ParameterStore store;
  BufferStore buffers;
  std::string error;
  ASSERT_TRUE(RankPlace::locate(whole, 0, 1, place, error)) << error;
  ASSERT_TRUE(store.layOut(whole, place, error)) << error;
  store.initialize(buffers, 3);
  ASSERT_TRUE(store.gather("", whole.parameters(0), buffers, expected, error)) << error;
  EXPECT_EQ(gathered, expected);
}

// NCCL's communicators for tied sums are split in one order on every rank,
// so every rank lists every group, empty where it holds no copy; parameters
// held by the same pipeline ranks share one.
TEST(ParameterStore, TiedGroupsInOneOrderOnEveryRank) {
  plan::Plan plan = meshPlan(3, 1, 1);
  addParameter(plan, "wte", {8, 4});
  addParameter(plan, "wpe", {8, 4});
  addParameter(plan, "h.w", {4, 2});
  for (int64_t k = 0; k < 3; ++k) {
    plan::Stage &s = *plan.add_stages();
    s.set_index(k);
    hold(s, "h.w");
    if (k != 1) {
      hold(s, "wte");
      hold(s, "wpe");
    }
  }
  std::vector<std::vector<int64_t>> expected[] = {{{0, 1, 2}, {0, 2}}, {{0, 1, 2}, {}},
                                                 {{0, 1, 2}, {0, 2}}};
  for (int64_t rank = 0; rank < 3; ++rank) {
    RankPlace place;
    std::string error;
    ASSERT_TRUE(RankPlace::locate(plan, rank, 3, place, error)) << error;
    std::vector<std::vector<int64_t>> groups = tiedGroups(plan, place);
    // h.w (on all three ranks) comes first by name, then wpe; wte shares wpe's.
    ASSERT_EQ(groups.size(), 2u) << rank;
    EXPECT_EQ(groups[0], expected[rank][0]) << rank;
    EXPECT_EQ(groups[1], expected[rank][1]) << rank;
  }
}
