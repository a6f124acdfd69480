//===- PipelineScheduleTest.cpp - 1F1B and interleaved 1F1B ----------------===//
#include "mt/Schedule/PipelineSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using mt::PipelineOp;
using mt::splitLayers;

TEST(Schedule1F1B, StageOrderFollowsThePaper) {
  // 4 stages, 8 micro-batches: stage 0 warms up with 3 forwards.
  auto s = mt::schedule1F1B(4, 8);
  ASSERT_EQ(s.size(), 4u);
  std::vector<PipelineOp> expect0 = {{PipelineOp::Forward, 0, 0},  {PipelineOp::Forward, 1, 0},
                                     {PipelineOp::Forward, 2, 0},  {PipelineOp::Forward, 3, 0},
                                     {PipelineOp::Backward, 0, 0}, {PipelineOp::Forward, 4, 0},
                                     {PipelineOp::Backward, 1, 0}};
  for (size_t i = 0; i < expect0.size(); ++i)
    EXPECT_EQ(s[0][i], expect0[i]) << "op " << i;
  // The last stage alternates from the start.
  EXPECT_EQ(s[3][0], (PipelineOp{PipelineOp::Forward, 0, 0}));
  EXPECT_EQ(s[3][1], (PipelineOp{PipelineOp::Backward, 0, 0}));
}

TEST(Schedule1F1B, BubbleIsStagesMinusOneOverMicroBatches) {
  for (int64_t p : {1, 2, 4, 8})
    for (int64_t m : {1, 4, 8, 16}) {
      if (m < p)
        continue;
      mt::SimulationResult r;
      std::string error;
      ASSERT_TRUE(mt::simulate(mt::schedule1F1B(p, m), 1, m, 1.0, 2.0, r, error)) << error;
      EXPECT_NEAR(r.bubbleFraction, double(p - 1) / double(m), 1e-12) << "p=" << p << " m=" << m;
    }
}

TEST(Schedule1F1B, PeakInFlightIsStagesMinusStageIndex) {
  int64_t p = 4, m = 8;
  mt::SimulationResult r;
  std::string error;
  ASSERT_TRUE(mt::simulate(mt::schedule1F1B(p, m), 1, m, 1.0, 2.0, r, error)) << error;
  for (int64_t s = 0; s < p; ++s)
    EXPECT_EQ(r.peakInFlight[s], p - s) << "stage " << s;
}

TEST(ScheduleInterleaved, BubbleShrinksByTheNumberOfChunks) {
  for (int64_t p : {2, 4})
    for (int64_t v : {2, 3})
      for (int64_t m : {2 * p, 4 * p}) {
        std::string error;
        auto s = mt::scheduleInterleaved(p, v, m, error);
        ASSERT_FALSE(s.empty()) << error;
        mt::SimulationResult r;
        ASSERT_TRUE(mt::simulate(s, v, m, 1.0, 2.0, r, error)) << error;
        EXPECT_NEAR(r.bubbleFraction, double(p - 1) / double(v * m), 1e-12)
            << "p=" << p << " v=" << v << " m=" << m;
      }
}

TEST(ScheduleInterleaved, PeakInFlightMatchesTheWarmup) {
  // Stage s holds its warm-up forwards, (p - s - 1) * 2 + (v - 1) * p, plus
  // the first steady-state forward.
  int64_t p = 4, v = 2, m = 8;
  std::string error;
  auto s = mt::scheduleInterleaved(p, v, m, error);
  mt::SimulationResult r;
  ASSERT_TRUE(mt::simulate(s, v, m, 1.0, 2.0, r, error)) << error;
  for (int64_t st = 0; st < p; ++st)
    EXPECT_EQ(r.peakInFlight[st], (p - st - 1) * 2 + (v - 1) * p + 1) << "stage " << st;
}

TEST(MostInFlight, OneF1BHoldsStagesMinusStageIndex) {
  // Stage s runs p - s - 1 warm-up forwards and one more before its first
  // backward; fewer micro-batches than stages cap it.
  for (int64_t m : {2, 8}) {
    auto s = mt::schedule1F1B(4, m);
    for (int64_t st = 0; st < 4; ++st)
      EXPECT_EQ(mt::mostInFlight(s, st, 0), std::min<int64_t>(4 - st, m)) << "stage " << st;
    EXPECT_EQ(mt::mostInFlight(s, 0, 1), 0); // no such chunk
    EXPECT_EQ(mt::mostInFlight(s, 4, 0), 0); // no such stage
  }
}

TEST(MostInFlight, InterleavedChunksAddUpToTheSimulatedPeak) {
  // Per chunk, and never more in all than the simulator's peak.
  int64_t p = 4, v = 2, m = 8;
  std::string error;
  auto s = mt::scheduleInterleaved(p, v, m, error);
  ASSERT_FALSE(s.empty()) << error;
  mt::SimulationResult r;
  ASSERT_TRUE(mt::simulate(s, v, m, 1.0, 2.0, r, error)) << error;
  for (int64_t st = 0; st < p; ++st) {
    int64_t sum = 0;
    for (int64_t c = 0; c < v; ++c) {
      int64_t held = mt::mostInFlight(s, st, c);
      EXPECT_GE(held, 1);
      EXPECT_LE(held, m);
      sum += held;
    }
    EXPECT_GE(sum, r.peakInFlight[st]) << "stage " << st;
  }
}

TEST(ScheduleInterleaved, RefusesMicroBatchesNotAMultipleOfStages) {
  std::string error;
  EXPECT_TRUE(mt::scheduleInterleaved(4, 2, 6, error).empty());
  EXPECT_NE(error.find("multiple of the pipeline stages"), std::string::npos);
}

TEST(Simulate, DetectsADeadlock) {
  // Two stages whose first ops wait on each other's backwards.
  mt::PipelineSchedule bad(2);
  bad[0] = {{PipelineOp::Backward, 0, 0}, {PipelineOp::Forward, 0, 0}};
  bad[1] = {{PipelineOp::Backward, 0, 0}, {PipelineOp::Forward, 0, 0}};
  mt::SimulationResult r;
  std::string error;
  EXPECT_FALSE(mt::simulate(bad, 1, 1, 1.0, 2.0, r, error));
  EXPECT_NE(error.find("deadlocks"), std::string::npos);
}

} // namespace

TEST(SplitLayers, EvenUnevenAndImpossible) {
  EXPECT_EQ(splitLayers(12, 4), (std::vector<int64_t>{3, 3, 3, 3}));
  EXPECT_EQ(splitLayers(10, 4), (std::vector<int64_t>{2, 3, 3, 2}));
  EXPECT_EQ(splitLayers(11, 4), (std::vector<int64_t>{3, 3, 3, 2}));
  EXPECT_EQ(splitLayers(5, 2), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(splitLayers(3, 1), (std::vector<int64_t>{3}));
  EXPECT_TRUE(splitLayers(3, 4).empty());
  for (int64_t layers = 1; layers <= 30; ++layers)
    for (int64_t parts = 1; parts <= layers; ++parts) {
      std::vector<int64_t> c = splitLayers(layers, parts);
      int64_t sum = 0, lo = layers, hi = 0;
      for (int64_t n : c) {
        sum += n;
        lo = std::min(lo, n);
        hi = std::max(hi, n);
      }
      EXPECT_EQ(sum, layers);
      EXPECT_LE(hi - lo, 1);
      EXPECT_GE(lo, 1);
    }
}
