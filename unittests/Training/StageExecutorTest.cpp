//===- StageExecutorTest.cpp - micro-batches through a two-stage pipeline -===//
//
// Stand-in code on two rank threads: stage 0's forward sends 10 x token on
// and keeps the token as its saved activation; stage 1's step takes the
// activation as its loss and sends back activation + 1. Each stage checks
// that what it receives or finds saved belongs to the micro-batch it runs,
// so a schedule, a channel or a saved set out of step shows.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Training/StageExecutor.h"

#include "TrainingTestSupport.h"

#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

namespace {

constexpr int kMicroBatches = 4;

plan::Function &addFunction(plan::Plan &plan, const std::string &name, plan::Function::Role role,
                            int64_t stage, std::vector<plan::TensorSpec> inputs,
                            std::vector<plan::TensorSpec> outputs) {
  plan::Function &f = *plan.add_functions();
  f.set_name(name);
  f.set_role(role);
  f.set_stage(stage);
  for (auto &s : inputs)
    *f.add_inputs() = s;
  for (auto &s : outputs)
    *f.add_outputs() = s;
  return f;
}

plan::Plan pipelinePlan() {
  plan::Plan plan = meshPlan(2, 1, 1);
  plan::Config &c = *plan.mutable_config();
  c.set_micro_batch_size(1);
  c.set_seq_length(1);
  c.set_global_batch_size(kMicroBatches);
  c.set_vocab_size(100);
  for (int k = 0; k < 2; ++k)
    plan.add_stages()->set_index(k);
  using F = plan::Function;
  plan::TensorSpec tokens = spec(buffers::batch("tokens"), {1, 1}, plan::I32);
  plan::TensorSpec saved = spec("s0/" + buffers::saved(0), {1});
  plan::TensorSpec out = spec("s0/" + std::string(buffers::kStageOutput), {1});
  plan::TensorSpec outGrad = spec("s0/" + std::string(buffers::kStageOutputGrad), {1});
  plan::TensorSpec in = spec("s1/" + std::string(buffers::kStageInput), {1});
  plan::TensorSpec inGrad = spec("s1/" + std::string(buffers::kStageInputGrad), {1});
  plan::TensorSpec loss = spec(std::string(buffers::kLoss), {});
  plan::TensorSpec metric = spec(buffers::metric("seen"), {});
  addFunction(plan, "fwd0", F::FORWARD, 0, {tokens}, {out, saved});
  addFunction(plan, "eval0", F::EVAL, 0, {tokens}, {out});
  addFunction(plan, "step0", F::TRAIN_STEP, 0, {tokens, saved, outGrad}, {});
  addFunction(plan, "fwd1", F::FORWARD, 1, {in}, {loss});
  addFunction(plan, "eval1", F::EVAL, 1, {in}, {loss});
  addFunction(plan, "step1", F::TRAIN_STEP, 1, {tokens, in}, {loss, inGrad, metric});
  for (int k = 0; k < 2; ++k) {
    addFunction(plan, "norm" + std::to_string(k), F::GRAD_SQ_NORM, k, {}, {});
    addFunction(plan, "opt" + std::to_string(k), F::OPTIMIZER, k, {}, {});
  }
  return plan;
}

MicroBatch batchOf(int32_t token) {
  MicroBatch b;
  b.tokens = b.labels = {token};
  b.lossMask = {1.0f};
  return b;
}

/// One pipeline rank: its parts, the stand-in code, what it saw.
struct PipelineRank {
  const plan::Plan &plan;
  RankPlace place;
  BufferStore buffers;
  ParameterStore params;
  FakeRunner runner{buffers};
  StageExecutor executor{runner, buffers, place};
  int mismatches = 0, lastBackwards = 0;

  PipelineRank(const plan::Plan &p, int rank, Communicator &comm) : plan(p) {
    std::string error;
    EXPECT_TRUE(RankPlace::locate(plan, rank, 2, place, error)) << error;
    place.comm = &comm;
    EXPECT_TRUE(params.layOut(plan, place, error)) << error;
    EXPECT_TRUE(executor.build(plan, params, error)) << error;
    for (const plan::Function &f : plan.functions())
      if (place.runsStage(f.stage()))
        for (const auto *specs : {&f.inputs(), &f.outputs()})
          for (const plan::TensorSpec &s : *specs)
            if (!buffers::isSaved(s.name()))
              buffers.ensure(s);
    EXPECT_TRUE(executor.allocateSaved(error)) << error;
    executor.onLastBackward([this](const LocalStage &) { ++lastBackwards; });
    auto f32 = [this](const std::string &name) { return buffers.find(name)->as<float>(); };
    auto token = [this] {
      return static_cast<float>(buffers.find(buffers::batch("tokens"))->as<int32_t>()[0]);
    };
    runner.bodies["fwd0"] = [=](BufferStore &, std::string &) {
      f32("s0/act_out")[0] = 10 * token();
      f32("s0/saved:0")[0] = token();
      return true;
    };
    runner.bodies["eval0"] = [=](BufferStore &, std::string &) {
      f32("s0/act_out")[0] = 10 * token();
      return true;
    };
    runner.bodies["step0"] = [=](BufferStore &, std::string &) {
      mismatches += f32("s0/saved:0")[0] != token();
      mismatches += f32("s0/act_out_grad")[0] != 10 * token() + 1;
      return true;
    };
    auto last = [=](BufferStore &, std::string &) {
      mismatches += f32("s1/act_in")[0] != 10 * token();
      f32("loss")[0] = f32("s1/act_in")[0];
      if (Buffer *g = buffers.find("s1/act_in_grad"))
        g->as<float>()[0] = f32("s1/act_in")[0] + 1;
      if (Buffer *m = buffers.find("metric:seen"))
        m->as<float>()[0] = 1;
      return true;
    };
    runner.bodies["step1"] = last;
    runner.bodies["eval1"] = last;
  }
};

} // namespace

TEST(StageExecutor, OneF1BRunsEveryMicroBatchThroughBothStages) {
  plan::Plan plan = pipelinePlan();
  std::vector<double> losses(2), seen(2);
  std::vector<std::vector<std::string>> calls(2);
  std::vector<int> mismatches(2), lastBackwards(2);
  std::vector<int64_t> savedBytes(2);
  std::vector<TimelineEntry> timeline;
  onRanks(2, [&](int r, Communicator &comm) {
    PipelineRank rank(plan, r, comm);
    std::vector<MicroBatch> batches;
    for (int i = 1; i <= kMicroBatches; ++i)
      batches.push_back(batchOf(i));
    StageExecutor::Sums sums;
    std::string error;
    ASSERT_TRUE(rank.executor.train(1, batches, 1.0, sums, error)) << error;
    ASSERT_TRUE(rank.executor.gatherTimeline(timeline, error)) << error;
    losses[r] = sums.loss;
    seen[r] = sums.metrics.empty() ? 0 : sums.metrics[0];
    calls[r] = rank.runner.calls;
    mismatches[r] = rank.mismatches;
    lastBackwards[r] = rank.lastBackwards;
    savedBytes[r] = rank.executor.savedActivationBytes();
  });
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0}));
  EXPECT_EQ(losses[0], 0.0); // the loss is the last stage's
  EXPECT_EQ(losses[1], 10.0 * (1 + 2 + 3 + 4));
  EXPECT_EQ(seen[1], kMicroBatches);
  // 1F1B on stage 0 of 2: one forward ahead, then alternating.
  EXPECT_EQ(calls[0], (std::vector<std::string>{"fwd0", "fwd0", "step0", "fwd0", "step0", "fwd0",
                                                "step0", "step0"}));
  EXPECT_EQ(calls[1], std::vector<std::string>(kMicroBatches, "step1"));
  EXPECT_EQ(lastBackwards, (std::vector<int>{1, 1}));
  // Two micro-batches in flight on stage 0: two sets of one f32.
  EXPECT_EQ(savedBytes[0], 8);
  EXPECT_EQ(savedBytes[1], 0);
  EXPECT_EQ(timeline.size(), 4u * kMicroBatches);
}

TEST(StageExecutor, EvaluationRunsTheForwardThroughTheStagesInOrder) {
  plan::Plan plan = pipelinePlan();
  std::vector<double> losses(2);
  std::vector<std::vector<std::string>> calls(2);
  onRanks(2, [&](int r, Communicator &comm) {
    PipelineRank rank(plan, r, comm);
    StageExecutor::Sums sums;
    std::string error;
    ASSERT_TRUE(rank.executor.evaluate(batchOf(7), 0, 1.0, sums, error)) << error;
    losses[r] = sums.loss;
    calls[r] = rank.runner.calls;
  });
  EXPECT_EQ(losses[1], 70.0);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"eval0"}));
  EXPECT_EQ(calls[1], (std::vector<std::string>{"eval1"}));
}

TEST(StageExecutor, RefusesAPlanWithoutAStagesFunction) {
  plan::Plan plan = pipelinePlan();
  plan.mutable_functions()->RemoveLast(); // opt1
  RankPlace place;
  BufferStore buffers;
  ParameterStore params;
  FakeRunner runner{buffers};
  StageExecutor executor{runner, buffers, place};
  std::string error;
  ASSERT_TRUE(RankPlace::locate(plan, 1, 2, place, error)) << error;
  ASSERT_TRUE(params.layOut(plan, place, error)) << error;
  EXPECT_FALSE(executor.build(plan, params, error));
  EXPECT_EQ(error, "the plan has no 'optimizer' function for stage 1");
}
