//===- LayoutSearchTest.cpp - clusters, layouts, stage-time simulation -----===//
#include "mt/Schedule/PipelineSchedule.h"
#include "mt/Search/Cluster.h"
#include "mt/Search/LayoutSpace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

using namespace mt;

namespace {

TEST(ClusterTest, PresetsAndNodes) {
  Cluster c;
  std::string error;
  ASSERT_TRUE(makeCluster("h100-80gb", 1024, 0, c, error)) << error;
  EXPECT_EQ(c.gpusPerNode, 8);
  EXPECT_EQ(c.chip.peakFlops16, 989e12);
  EXPECT_LT(c.usableBytes(), c.chip.memoryBytes);
  EXPECT_NE(c.describe().find("128 nodes x 8 h100-80gb"), std::string::npos) << c.describe();
  ASSERT_TRUE(makeCluster("a100-80gb", 4, 0, c, error)) << error;
  EXPECT_EQ(c.gpusPerNode, 4); // a part of one node
  EXPECT_FALSE(makeCluster("h100-80gb", 12, 0, c, error));
  EXPECT_NE(error.find("not a whole number of nodes of 8"), std::string::npos) << error;
  EXPECT_FALSE(makeCluster("v100", 8, 0, c, error));
  EXPECT_NE(error.find("neither a preset"), std::string::npos) << error;
}

TEST(ClusterTest, GemmEfficiencyByShape) {
  ChipSpec chip;
  chip.gemm = {{1024, 1024, 1024, 0.5}, {8192, 8192, 8192, 0.8}, {4096, 64, 4096, 0.1}};
  EXPECT_DOUBLE_EQ(chip.gemmEfficiency(1024, 1024, 1024), 0.5); // measured: its own value
  double between = chip.gemmEfficiency(2048, 2048, 2048);
  EXPECT_GT(between, 0.1);
  EXPECT_LT(between, 0.8);
  // Nearer the large shape than the small one.
  EXPECT_GT(chip.gemmEfficiency(6000, 6000, 6000), chip.gemmEfficiency(1500, 1500, 1500));
  Cluster h100;
  ASSERT_TRUE(presetCluster("h100-80gb", h100));
  // Measured: GPT-2's 768 x 768 projections are slow, its 50304-wide head fast.
  EXPECT_LT(h100.chip.gemmEfficiency(4096, 768, 768), 0.45);
  EXPECT_GT(h100.chip.gemmEfficiency(4096, 768, 50304), 0.8);
}

TEST(ClusterTest, RingCollectives) {
  LinkSpec link{100e9, 1e-6};
  // All-reduce of 1 GB over 4: 6 steps, 1.5 GB sent.
  EXPECT_NEAR(collectiveSeconds(CollectiveKind::AllReduce, 1e9, 4, link), 6e-6 + 0.015, 1e-12);
  EXPECT_NEAR(collectiveSeconds(CollectiveKind::AllGather, 1e9, 4, link), 3e-6 + 0.0075, 1e-12);
  EXPECT_EQ(collectiveSeconds(CollectiveKind::ReduceScatter, 1e9, 1, link), 0);
  EXPECT_TRUE(insideOneNode({8, 9, 15}, 8));
  EXPECT_FALSE(insideOneNode({7, 8}, 8));
}

TEST(ClusterTest, File) {
  std::string path = ::testing::TempDir() + "/cluster.json";
  {
    std::ofstream f(path);
    f << R"({"base": "h100-80gb", "gpus_per_node": 4,
             "chip": {"name": "h100-pcie", "memory_bandwidth_gb_s": 2000,
                      "gemm_efficiency": [[1024, 1024, 1024, 0.5]]},
             "inter_node": {"bandwidth_gb_s": 12.5, "latency_us": 10}})";
  }
  Cluster c;
  std::string error;
  ASSERT_TRUE(makeCluster(path, 16, 0, c, error)) << error;
  EXPECT_EQ(c.gpusPerNode, 4);
  EXPECT_EQ(c.chip.name, "h100-pcie");
  EXPECT_EQ(c.chip.memoryBandwidth, 2000e9);
  EXPECT_EQ(c.chip.peakFlops16, 989e12); // from the base
  EXPECT_EQ(c.interNode.bandwidth, 12.5e9);
  EXPECT_EQ(c.chip.gemm.size(), 1u);
  {
    std::ofstream f(path);
    f << R"({"base": "h100-80gb", "chip": {"peak_tflops": 5}})";
  }
  EXPECT_FALSE(makeCluster(path, 8, 0, c, error));
  EXPECT_NE(error.find("unknown field \"peak_tflops\""), std::string::npos) << error;
  {
    std::ofstream f(path);
    f << R"({"gpus_per_node": 8, "chip": {"peak_tflops_16bit": 100}})";
  }
  EXPECT_FALSE(makeCluster(path, 8, 0, c, error));
  EXPECT_NE(error.find("\"chip.peak_tflops_32bit\" is missing"), std::string::npos) << error;
  {
    std::ofstream f(path);
    f << R"({"base": "h100-80gb", "intra_node": {"bandwidth_gb_s": -1}})";
  }
  EXPECT_FALSE(makeCluster(path, 8, 0, c, error));
  EXPECT_NE(error.find("must be a positive number"), std::string::npos) << error;
  {
    std::ofstream f(path);
    f << "{not json";
  }
  EXPECT_FALSE(makeCluster(path, 8, 0, c, error));
  EXPECT_NE(error.find("is not JSON"), std::string::npos) << error;
  EXPECT_FALSE(makeCluster(path + ".missing.json", 8, 0, c, error));
  EXPECT_NE(error.find("cannot read the cluster file"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(LayoutSpaceTest, EnumeratesWhatDivides) {
  LayoutBounds b;
  b.gpus = 8;
  b.layers = 4;
  b.globalBatch = 8;
  b.maxMicroBatch = 2;
  std::vector<Layout> all = enumerateLayouts(b);
  std::set<std::string> seen;
  for (const Layout &l : all) {
    EXPECT_EQ(l.ranks(), 8);
    EXPECT_LE(l.pp, 4);
    EXPECT_EQ(8 % (l.dp * l.microBatch), 0);
    EXPECT_LE(l.microBatch, 2);
    EXPECT_TRUE(l.tp > 1 || !l.sequenceParallel);
    EXPECT_TRUE(l.dp > 1 || !l.distributedOptimizer);
    if (l.virtualStages > 1) {
      EXPECT_EQ(4 % (l.pp * l.virtualStages), 0);
      EXPECT_EQ(l.microBatches(8) % l.pp, 0);
    }
    EXPECT_TRUE(seen.insert(l.flags()).second) << "twice: " << l.flags();
  }
  // tp 2 pp 2 x 2 virtual dp 2 mbs 1: 4 micro-batches, a multiple of pp.
  Layout l;
  l.tp = l.pp = l.virtualStages = l.dp = 2;
  l.sequenceParallel = true;
  l.distributedOptimizer = true;
  l.recompute = RecomputeChoice::Full;
  EXPECT_TRUE(seen.count(l.flags())) << l.flags();
  EXPECT_EQ(l.flags(), "--tp=2 --pp=2 --virtual-stages=2 --schedule=interleaved --dp=2 "
                       "--micro-batch-size=1 --sp --distributed-optimizer "
                       "--recompute-granularity=full --recompute-method=uniform "
                       "--recompute-num-layers=1");
  // Fixed choices narrow it.
  b.tp = 2;
  b.recompute = RecomputeChoice::Selective;
  b.sequenceParallel = true;
  for (const Layout &f : enumerateLayouts(b)) {
    EXPECT_EQ(f.tp, 2);
    EXPECT_TRUE(f.sequenceParallel);
    EXPECT_EQ(f.recompute, RecomputeChoice::Selective);
  }
}

TEST(StageTimesTest, MatchesTheUniformSimulator) {
  // Equal stages and free links: the same makespan as simulate().
  for (int64_t v : {1, 2}) {
    std::string error;
    PipelineSchedule s = v > 1 ? scheduleInterleaved(4, v, 8, error) : schedule1F1B(4, 8);
    ASSERT_FALSE(s.empty()) << error;
    SimulationResult uniform;
    ASSERT_TRUE(simulate(s, v, 8, 1.0, 2.0, uniform, error)) << error;
    StageTimes t;
    t.forward.assign(static_cast<size_t>(4 * v), 1.0 / static_cast<double>(v));
    t.backward.assign(t.forward.size(), 2.0 / static_cast<double>(v));
    t.send.assign(t.forward.size(), 0.0);
    double makespan = 0;
    ASSERT_TRUE(simulateStageTimes(s, v, 8, t, makespan, error)) << error;
    EXPECT_NEAR(makespan, uniform.makespan, 1e-9);
  }
}

TEST(StageTimesTest, SlowStageAndLinks) {
  // Two stages, two micro-batches, 1F1B: F0 F1 on stage 0 wait on nothing;
  // stage 1's forward of micro-batch 0 starts after F0 (1 s) + the send.
  PipelineSchedule s = schedule1F1B(2, 2);
  StageTimes t{{1, 1}, {2, 3}, {0.5, 0}};
  double makespan = 0;
  std::string error;
  ASSERT_TRUE(simulateStageTimes(s, 1, 2, t, makespan, error)) << error;
  // Stage 1: F(0) 1.5-2.5, B(0) 2.5-5.5, F(1) 5.5-6.5, B(1) 6.5-9.5.
  // Stage 0: F0 0-1, F1 1-2, B0 waits 5.5+0.5: 6-8, B1 waits 9.5+0.5: 10-12.
  EXPECT_DOUBLE_EQ(makespan, 12.0);
  t.send.pop_back();
  EXPECT_FALSE(simulateStageTimes(s, 1, 2, t, makespan, error));
}

} // namespace
