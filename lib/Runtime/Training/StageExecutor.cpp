//===- StageExecutor.cpp - micro-batches through this rank's stages -------===//
#include "mt/Runtime/Training/StageExecutor.h"

#include "TrainerInternals.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/Training/BatchInputs.h"

#include <algorithm>
#include <set>

namespace mt {

using namespace trainer;

bool StageExecutor::build(const plan::Plan &plan, const ParameterStore &params,
                          std::string &error) {
  plan_ = &plan;
  stages_.clear();
  metricNames_.clear();
  for (const plan::Function &f : plan.functions())
    if (f.role() == plan::Function::TRAIN_STEP)
      for (const plan::TensorSpec &out : f.outputs())
        if (buffers::isMetric(out.name()) &&
            std::find(metricNames_.begin(), metricNames_.end(), out.name()) == metricNames_.end())
          metricNames_.push_back(out.name());
  auto function = [&](plan::Function::Role role, int64_t stage) -> const plan::Function * {
    for (const plan::Function &f : plan.functions())
      if (f.role() == role && f.stage() == stage)
        return &f;
    return nullptr;
  };
  for (int64_t k = place_.ppIndex; k < place_.numStages; k += place_.pp) {
    LocalStage st;
    st.index = k;
    st.chunk = k / place_.pp;
    st.prefix = buffers::stagePrefix(k, place_.numStages);
    // No "accumulate" when the step adds into the accumulators itself
    // (checked below against the parameters).
    using plan::Function;
    for (Function::Role role :
         {Function::FORWARD, Function::TRAIN_STEP, Function::GRAD_SQ_NORM, Function::OPTIMIZER})
      if (!function(role, k)) {
        error = "the plan has no '" + std::string(nameOf(role)) + "' function for stage " +
                std::to_string(k);
        return false;
      }
    st.forward = function(Function::FORWARD, k);
    st.trainStep = function(Function::TRAIN_STEP, k);
    st.eval = function(Function::EVAL, k);
    st.accumulate = function(Function::ACCUMULATE, k);
    st.gradSqNorm = function(Function::GRAD_SQ_NORM, k);
    st.optimizer = function(Function::OPTIMIZER, k);
    if (!collectSaved(st, error))
      return false;
    // Every gradient is accumulated exactly once a micro-batch: by the step
    // in place, or by the accumulation function.
    std::set<std::string> inPlace(st.trainStep->updated_in_place().begin(),
                                  st.trainStep->updated_in_place().end());
    for (const ParameterSlice &sl : params.slices()) {
      if (sl.stage != k)
        continue;
      bool byStep = inPlace.count(sl.accumulator) > 0;
      if (byStep == (st.accumulate != nullptr)) {
        error = "the plan is corrupt: the gradient of '" + sl.param->name() + "' on stage " +
                std::to_string(k) + " is accumulated " + (byStep ? "twice" : "by nothing") +
                " (train_step " + (byStep ? "updates" : "does not update") +
                " its accumulator in place, and there is " + (st.accumulate ? "an" : "no") +
                " accumulate function)";
        return false;
      }
    }
    stages_.push_back(std::move(st));
  }
  state_.clear();
  state_.resize(stages_.size());
  return true;
}

bool StageExecutor::collectSaved(LocalStage &st, std::string &error) {
  // The forward writes every saved buffer the training step reads.
  for (const plan::TensorSpec &in : st.trainStep->inputs()) {
    if (!buffers::isSaved(in.name()))
      continue;
    if (std::none_of(st.forward->outputs().begin(), st.forward->outputs().end(),
                     [&](const plan::TensorSpec &o) { return o.name() == in.name(); })) {
      error = "the plan is corrupt: the training step of stage " + std::to_string(st.index) +
              " reads the saved activation '" + in.name() + "', which its forward does not write";
      return false;
    }
    st.saved.push_back(in);
  }
  return true;
}

bool StageExecutor::allocateSaved(std::string &error) {
  if (place_.numStages == 1)
    return true;
  const plan::Config &c = plan_->config();
  int64_t micro = c.global_batch_size() / (c.micro_batch_size() * place_.dp);
  int64_t virtualStages = place_.numStages / place_.pp;
  schedule_ = virtualStages > 1 ? scheduleInterleaved(place_.pp, virtualStages, micro, error)
                                : schedule1F1B(place_.pp, micro);
  if (schedule_.empty())
    return false;
  for (size_t chunk = 0; chunk < stages_.size(); ++chunk) {
    const LocalStage &st = stages_[chunk];
    int64_t sets = st.saved.empty() ? 0 : mostInFlight(schedule_, place_.ppIndex, st.chunk);
    for (int64_t n = 0; n < sets; ++n) {
      SavedSet set;
      for (const plan::TensorSpec &spec : st.saved) {
        set.push_back(buffers_.make(spec, "saved activation '" + spec.name() +
                                              "' of micro-batch set " + std::to_string(n)));
        int64_t bytes = dtypeBytes(spec.dtype());
        for (int64_t d : spec.shape())
          bytes *= d;
        savedBytes_ += bytes;
      }
      state_[chunk].freeSets.push_back(std::move(set));
    }
  }
  return true;
}

void StageExecutor::swapSaved(const LocalStage &st, SavedSet &set) {
  for (size_t i = 0; i < st.saved.size(); ++i)
    buffers_.exchange(st.saved[i].name(), set[i]);
}

bool StageExecutor::takeFreeSet(size_t chunk, const std::string &micro, SavedSet &set,
                                std::string &error) {
  std::vector<SavedSet> &free = state_[chunk].freeSets;
  if (free.empty()) {
    error = "stage " + std::to_string(stages_[chunk].index) +
            " has no free set of saved activations for" + micro +
            ": the schedule holds more micro-batches than were planned";
    return false;
  }
  set = std::move(free.back());
  free.pop_back();
  swapSaved(stages_[chunk], set);
  return true;
}

bool StageExecutor::setBatch(const MicroBatch &batch, int64_t iteration, int64_t micro,
                             double lossScale, std::string &error) {
  return writeBatch(buffers_, plan_->config(), batch, iteration, micro, lossScale, error);
}

bool StageExecutor::callTrainStep(const LocalStage &st, std::string &error) {
  return runner_.call(*st.trainStep, error) &&
         (!st.accumulate || runner_.call(*st.accumulate, error));
}

void StageExecutor::addLastStage(Sums &sums) {
  sums.loss += buffers_.read(std::string(buffers::kLoss));
  sums.metrics.resize(metricNames_.size(), 0.0);
  for (size_t i = 0; i < metricNames_.size(); ++i)
    if (buffers_.find(metricNames_[i]))
      sums.metrics[i] += buffers_.read(metricNames_[i]);
}

bool StageExecutor::train(int64_t iteration, const std::vector<MicroBatch> &batches,
                          double lossScale, Sums &sums, std::string &error) {
  if (place_.numStages > 1)
    return runPipeline(iteration, batches, lossScale, sums, error);
  const LocalStage &st = stages_.front();
  int64_t n = static_cast<int64_t>(batches.size());
  for (int64_t k = 0; k < n; ++k) {
    if (!setBatch(batches[static_cast<size_t>(k)], iteration, k * place_.dp + place_.dpIndex,
                  lossScale, error))
      return false;
    // The last micro-batch's backward finishes the gradients.
    bool last = k + 1 == n;
    if (last && lastBackward_)
      lastBackward_(st);
    bool called = callTrainStep(st, error);
    if (last)
      runner_.signalGradientsTo(nullptr);
    if (!called)
      return false;
    addLastStage(sums);
  }
  return true;
}

bool StageExecutor::evaluate(const MicroBatch &batch, int64_t index, double lossScale, Sums &sums,
                             std::string &error) {
  if (!setBatch(batch, 0, index, lossScale, error))
    return false;
  for (const LocalStage &st : stages_) {
    int64_t k = st.index;
    std::string what = "evaluation activation into stage ";
    if (k > 0) {
      Buffer &in = stageBuffer(st, buffers::kStageInput);
      if (!recvFromStage(k - 1, Flow::Activations, place_.stageRank(k - 1), kEvalChannelBase + static_cast<int>(k - 1),
                         in, stageType(st, buffers::kStageInput), what + std::to_string(k),
                         error))
        return false;
    }
    if (!runner_.call(st.eval ? *st.eval : *st.forward, error))
      return false;
    if (place_.isLastStage(k)) {
      addLastStage(sums);
    } else {
      Buffer &out = stageBuffer(st, buffers::kStageOutput);
      if (!sendToStage(k, Flow::Activations, place_.stageRank(k + 1), kEvalChannelBase + static_cast<int>(k), out,
                       stageType(st, buffers::kStageOutput), what + std::to_string(k + 1),
                       error))
        return false;
    }
  }
  // Each evaluation's messages go before the next batch's.
  return !nccl_ || nccl_->flush(gpu_, error);
}

} // namespace mt
