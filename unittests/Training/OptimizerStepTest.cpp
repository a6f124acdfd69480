//===- OptimizerStepTest.cpp - norm, skipping, clipping, the update -------===//
#include "mt/Runtime/Training/OptimizerStep.h"

#include "TrainingTestSupport.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

TEST(OptimizerStep, HyperParametersFillTheAbiSlots) {
  plan::Optimizer o;
  o.set_adam_beta1(0.9);
  o.set_adam_beta2(0.95);
  o.set_adam_eps(1e-8);
  o.set_weight_decay(0.1);
  auto h = hyperParameters(o, 2, 3e-4, 0.25);
  EXPECT_EQ(h[MT_ABI_HYPER_LR], 3e-4);
  EXPECT_EQ(h[MT_ABI_HYPER_BETA2], 0.95);
  EXPECT_EQ(h[MT_ABI_HYPER_WEIGHT_DECAY], 0.1);
  EXPECT_DOUBLE_EQ(h[MT_ABI_HYPER_BIAS_CORRECTION1], 1 - 0.81);
  EXPECT_DOUBLE_EQ(h[MT_ABI_HYPER_BIAS_CORRECTION2], 1 - 0.9025);
  EXPECT_EQ(h[MT_ABI_HYPER_GRAD_SCALE], 0.25);
}

namespace {

/// A one-rank plan with parameter "w" [4], a gradient-norm function whose
/// square is `square`, and an optimizer that records its hyper slots and
/// adds 1 to what it updates.
struct OneRank {
  plan::Plan plan = meshPlan(1, 1, 1);
  RankPlace place;
  BufferStore buffers;
  ParameterStore params;
  FakeRunner runner{buffers};
  OptimizerStep step{buffers, params, place, runner};
  plan::Function norm, opt;
  std::vector<LocalStage> stages{1};
  std::vector<float> hyper;
  double square = 16;

  explicit OneRank(bool distributed = false) {
    addParameter(plan, "w", {4});
    plan::Config &c = *plan.mutable_config();
    c.mutable_optimizer()->set_lr(0.5);
    c.mutable_optimizer()->set_lr_decay_style(plan::Optimizer::CONSTANT);
    c.mutable_optimizer()->set_clip_grad(1.0);
    c.mutable_parallel()->set_distributed_optimizer(distributed);
    std::string error;
    EXPECT_TRUE(RankPlace::locate(plan, 0, 1, place, error)) << error;
    EXPECT_TRUE(params.layOut(plan, place, error)) << error;
    params.initialize(buffers, 5);
    step.configure(c);
    norm.set_name("norm");
    *norm.add_outputs() = spec(buffers::of(buffers::Role::GradSquare, "w"), {}, plan::F32);
    opt.set_name("opt");
    *opt.add_inputs() = spec(std::string(buffers::kHyper), {MT_ABI_HYPER_COUNT});
    std::string updated = distributed ? buffers::of(buffers::Role::ParamShard, "w") : "w";
    *opt.add_inputs() = spec(updated, {4});
    stages[0].gradSqNorm = &norm;
    stages[0].optimizer = &opt;
    runner.bodies["norm"] = [this](BufferStore &b, std::string &) {
      b.find(buffers::of(buffers::Role::GradSquare, "w"))->as<float>()[0] =
          static_cast<float>(square);
      return true;
    };
    runner.bodies["opt"] = [this, updated](BufferStore &b, std::string &) {
      float *h = b.find(std::string(buffers::kHyper))->as<float>();
      hyper.assign(h, h + MT_ABI_HYPER_COUNT);
      for (int i = 0; i < 4; ++i)
        b.find(updated)->as<float>()[i] += 1;
      return true;
    };
    buffers.ensure(opt.inputs(0));
  }
  bool run(StepStats &stats, int64_t micro, std::string &error) {
    double sq = 0;
    return step.gradientSquares(stages, sq, error) && step.apply(stages, micro, sq, stats, error);
  }
};

} // namespace

TEST(OptimizerStep, ClipsToTheNormAndAveragesOverMicroBatches) {
  OneRank r;
  r.square = 64; // sum over 2 micro-batches: norm 8, mean 4
  StepStats stats;
  stats.loss = 2.0;
  std::string error;
  ASSERT_TRUE(r.run(stats, 2, error)) << error;
  EXPECT_DOUBLE_EQ(stats.gradNorm, 4.0);
  EXPECT_EQ(stats.lr, 0.5);
  EXPECT_FALSE(stats.skipped);
  EXPECT_EQ(r.step.steps(), 1);
  ASSERT_EQ(r.hyper.size(), static_cast<size_t>(MT_ABI_HYPER_COUNT));
  EXPECT_FLOAT_EQ(r.hyper[MT_ABI_HYPER_GRAD_SCALE], static_cast<float>(1.0 / (4.0 + 1e-6) / 2));
}

TEST(OptimizerStep, SkipsANonFiniteStepWithoutCountingIt) {
  OneRank r;
  StepStats stats;
  stats.loss = std::nan("");
  std::string error;
  ASSERT_TRUE(r.run(stats, 1, error)) << error;
  EXPECT_TRUE(stats.skipped);
  EXPECT_EQ(r.step.steps(), 0);
  EXPECT_EQ(r.runner.calls, (std::vector<std::string>{"norm"})); // no update
}

TEST(OptimizerStep, AnOverflowLowersTheLossScale) {
  OneRank r;
  r.plan.mutable_config()->mutable_loss_scaling()->set_initial_scale(1024);
  r.plan.mutable_config()->mutable_loss_scaling()->set_min_scale(1);
  r.plan.mutable_config()->mutable_loss_scaling()->set_window(100);
  r.plan.mutable_config()->mutable_loss_scaling()->set_hysteresis(1);
  r.step.configure(r.plan.config());
  EXPECT_EQ(r.step.lossScale(), 1024);
  r.square = INFINITY;
  StepStats stats;
  stats.loss = 3.0;
  std::string error;
  ASSERT_TRUE(r.run(stats, 1, error)) << error;
  EXPECT_TRUE(stats.skipped);
  EXPECT_TRUE(stats.overflow);
  EXPECT_EQ(stats.lossScale, 1024);
  EXPECT_EQ(r.step.lossScale(), 512);
  // The gradients of a scaled loss are unscaled in the norm.
  r.square = std::pow(512.0 * 3.0, 2);
  StepStats next;
  next.loss = 3.0;
  ASSERT_TRUE(r.run(next, 1, error)) << error;
  EXPECT_DOUBLE_EQ(next.gradNorm, 3.0);
}

TEST(OptimizerStep, DistributedOptimizerUpdatesThroughTheShard) {
  OneRank r(/*distributed=*/true);
  r.buffers.ensure(spec(buffers::of(buffers::Role::ParamShard, "w"), {4}));
  std::vector<double> before;
  for (int i = 0; i < 4; ++i)
    before.push_back(r.buffers.read("w", i));
  StepStats stats;
  stats.loss = 1.0;
  std::string error;
  ASSERT_TRUE(r.run(stats, 1, error)) << error;
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(static_cast<float>(r.buffers.read("w", i)), static_cast<float>(before[i] + 1));
}
