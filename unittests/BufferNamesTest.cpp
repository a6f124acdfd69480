//===- BufferNamesTest.cpp - the names of a plan's runtime buffers ---------===//
#include "mt/Plan/BufferNames.h"

#include <gtest/gtest.h>

using namespace mt::buffers;

TEST(BufferNames, PerParameterBuffers) {
  EXPECT_EQ(of(Role::GradAccumulator, "h.ln_1.weight"), "grad_acc:h.ln_1.weight");
  EXPECT_EQ(of(Role::ExpAvgSq, "wte"), "exp_avg_sq:wte");
  EXPECT_EQ(of(Role::ParamShard, "wte"), "param_shard:wte");
  EXPECT_EQ(batch("loss_mask"), "batch:loss_mask");
  EXPECT_TRUE(isBatch("batch:tokens"));
  EXPECT_FALSE(isBatch("grad:batch:tokens"));
}

TEST(BufferNames, StagesShareOnlyTheBatchLossAndHyperParameters) {
  EXPECT_EQ(staged("grad_acc:wte", 1, /*pipelined=*/true), "s1/grad_acc:wte");
  EXPECT_EQ(staged("batch:tokens", 1, true), "batch:tokens");
  EXPECT_EQ(staged(kLoss, 3, true), "loss");
  EXPECT_EQ(staged(kHyper, 3, true), "hyper");
  EXPECT_EQ(staged("wte", 1, /*pipelined=*/false), "wte");
  EXPECT_EQ(stagePrefix(2, 4), "s2/");
  EXPECT_EQ(stagePrefix(0, 1), "");
  EXPECT_EQ(unstaged("s12/exp_avg:wte"), "exp_avg:wte");
  EXPECT_EQ(unstaged("wte"), "wte");
}

TEST(BufferNames, MemoryReportCategories) {
  std::set<std::string> params = {"wte", "h.attn.qkv.weight"};
  EXPECT_EQ(categoryOf("s1/wte", params), "parameters");
  EXPECT_EQ(categoryOf("s1/grad_acc:wte", params), "gradients");
  EXPECT_EQ(categoryOf("grad_sq:wte", params), "gradients");
  EXPECT_EQ(categoryOf("exp_avg:wte", params), "optimizer state");
  EXPECT_EQ(categoryOf("param_shard:wte", params), "optimizer state");
  EXPECT_EQ(categoryOf("batch:tokens", params), "batch, stage and loss tensors");
  EXPECT_EQ(categoryOf("s0/act_in", params), "batch, stage and loss tensors");
}
