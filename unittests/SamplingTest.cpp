//===- SamplingTest.cpp - choosing the next token --------------------------===//
#include "mt/Runtime/Inference/Sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

using namespace mt;

namespace {

/// Logits with a spread of values, some equal, from a fixed recurrence.
std::vector<float> someLogits(size_t n, uint64_t seed) {
  std::vector<float> logits(n);
  for (size_t i = 0; i < n; ++i)
    logits[i] = static_cast<float>(std::floor(uniformDraw(seed, i) * 40.0) / 8.0 - 2.5);
  return logits;
}

/// The k most likely ids by the rule candidatesOf states (ties: lower id).
std::set<int32_t> topK(const std::vector<float> &logits, size_t k) {
  std::vector<int32_t> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });
  return std::set<int32_t>(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
}

TEST(Sampling, TopKKeepsTheKMostLikely) {
  std::vector<float> logits = someLogits(200, 1);
  SamplingOptions o;
  o.topK = 7;
  Candidates c = candidatesOf(logits, o);
  ASSERT_EQ(c.ids.size(), 7u);
  EXPECT_EQ(std::set<int32_t>(c.ids.begin(), c.ids.end()), topK(logits, 7));
  double sum = 0;
  for (double p : c.probs)
    sum += p;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  for (size_t i = 1; i < c.probs.size(); ++i)
    EXPECT_GE(c.probs[i - 1], c.probs[i]);
}

TEST(Sampling, TopPIsTheSmallestSetReachingP) {
  std::vector<float> logits = {2.0f, 1.0f, 0.5f, 0.0f, -1.0f};
  SamplingOptions all;
  Candidates full = candidatesOf(logits, all);
  for (double p : {0.01, 0.3, 0.5, 0.7, 0.9, 0.99}) {
    SamplingOptions o;
    o.topP = p;
    Candidates c = candidatesOf(logits, o);
    double mass = 0;
    for (size_t i = 0; i < c.ids.size(); ++i)
      mass += full.probs[i];
    EXPECT_GE(mass + 1e-12, p) << p;
    EXPECT_LT(mass - full.probs[c.ids.size() - 1], p) << p; // one fewer would not reach p
    EXPECT_FALSE(c.ids.empty());
  }
}

TEST(Sampling, NeverEmptyAndTemperatureSharpens) {
  std::vector<float> logits = {1.0f, 0.9f, 0.8f};
  SamplingOptions o;
  o.topP = 1e-9;
  EXPECT_EQ(candidatesOf(logits, o).ids, std::vector<int32_t>{0});
  SamplingOptions hot, cold;
  hot.temperature = 2.0;
  cold.temperature = 0.5;
  EXPECT_GT(candidatesOf(logits, cold).probs[0], candidatesOf(logits, hot).probs[0]);
}

// Over many seeded draws, no token outside the allowed set, and each
// allowed token drawn about as often as its probability says.
TEST(Sampling, DrawsStayInTheAllowedSet) {
  for (uint64_t trial = 0; trial < 20; ++trial) {
    std::vector<float> logits = someLogits(500, 100 + trial);
    SamplingOptions o;
    o.greedy = false;
    o.topK = static_cast<int64_t>(3 + trial % 17);
    o.topP = 0.5 + 0.025 * static_cast<double>(trial);
    o.temperature = 0.7 + 0.1 * static_cast<double>(trial % 5);
    o.seed = trial;
    Candidates allowed = candidatesOf(logits, o);
    std::set<int32_t> set(allowed.ids.begin(), allowed.ids.end());
    std::map<int32_t, int> counts;
    const int draws = 20000;
    for (int step = 0; step < draws; ++step) {
      int32_t t = chooseToken(logits, {}, o, static_cast<uint64_t>(step));
      ASSERT_TRUE(set.count(t)) << "trial " << trial << " drew " << t;
      ++counts[t];
    }
    for (size_t i = 0; i < allowed.ids.size(); ++i)
      EXPECT_NEAR(counts[allowed.ids[i]] / double(draws), allowed.probs[i], 0.02);
  }
}

TEST(Sampling, SeededDrawsRepeat) {
  std::vector<float> logits = someLogits(100, 3);
  SamplingOptions o;
  o.greedy = false;
  o.seed = 42;
  std::vector<int32_t> a, b, c;
  for (uint64_t step = 0; step < 50; ++step) {
    a.push_back(chooseToken(logits, {}, o, step));
    b.push_back(chooseToken(logits, {}, o, step));
  }
  o.seed = 43;
  for (uint64_t step = 0; step < 50; ++step)
    c.push_back(chooseToken(logits, {}, o, step));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (uint64_t step = 0; step < 1000; ++step) {
    double u = uniformDraw(7, step);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(Sampling, GreedyAndRepetitionPenalty) {
  std::vector<float> logits = {1.0f, 3.0f, 3.0f, -2.0f};
  EXPECT_EQ(argmax(logits), 1); // the lower id on ties
  penalizeRepetition(logits, {1, 1, 3}, 2.0);
  EXPECT_FLOAT_EQ(logits[1], 1.5f);  // positive: divided, once however often seen
  EXPECT_FLOAT_EQ(logits[3], -4.0f); // negative: multiplied
  EXPECT_FLOAT_EQ(logits[2], 3.0f);
  SamplingOptions o;
  o.repetitionPenalty = 2.0;
  EXPECT_EQ(chooseToken({1.0f, 3.0f, 2.0f}, {1}, o, 0), 2);
}

} // namespace
