//===- TrainerPipeline.cpp - a step's passes through the pipeline stages --===//
#include "mt/Runtime/Trainer.h"

#include <algorithm>

#include "TrainerInternals.h"

#include <chrono>
#include <cstring>
#include <map>

namespace mt {

using namespace trainer;

namespace {

/// How a stage's buffer (an activation or its gradient, floating-point as
/// verifyPlan checks) crosses to the next rank.
ElementType stageType(std::map<std::string, plan::DType> &dtypes, const std::string &prefix,
                      std::string_view kind) {
  switch (dtypes[prefix + std::string(kind)]) {
  case plan::F64:
    return ElementType::F64;
  case plan::BF16:
    return ElementType::BF16;
  case plan::F16:
    return ElementType::F16;
  default:
    return ElementType::F32;
  }
}

/// Each chunk's last backward of the step (its position in `order`): it
/// finishes the chunk's gradients, so the overlapped reduction takes them
/// from there.
std::map<int64_t, size_t> lastBackwardOf(const std::vector<PipelineOp> &order) {
  std::map<int64_t, size_t> last;
  for (size_t n = 0; n < order.size(); ++n)
    if (order[n].kind != PipelineOp::Forward)
      last[order[n].chunk] = n;
  return last;
}

} // namespace

bool Trainer::takeFreeSet(Stage &st, const std::string &micro, SavedSet &set, std::string &error) {
  if (st.freeSets.empty()) {
    error = "stage " + std::to_string(st.index) + " has no free set of saved activations for" +
            micro + ": the schedule holds more micro-batches than were planned";
    return false;
  }
  set = std::move(st.freeSets.back());
  st.freeSets.pop_back();
  swapSaved(st, set);
  return true;
}

bool Trainer::runPipeline(int64_t iteration, const std::vector<MicroBatch> &batches,
                          double &lossSum, std::string &error) {
  if (pipelineSchedule_.empty()) {
    error = "the pipeline schedule was not built when the plan was loaded";
    return false;
  }
  // A stage that keeps its activations holds each micro-batch's set from
  // its forward to its backward; a stage whose step computes its forward
  // again (the last) keeps its input instead.
  std::map<std::pair<int64_t, int64_t>, SavedSet> held;                    // (chunk, micro)
  std::map<std::pair<int64_t, int64_t>, std::vector<unsigned char>> stash; // (chunk, micro)
  timeline_.clear();
  const std::vector<PipelineOp> &order = pipelineSchedule_[static_cast<size_t>(ppIndex_)];
  std::map<int64_t, size_t> lastBackward = lastBackwardOf(order);
  auto now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  for (size_t n = 0; n < order.size(); ++n) {
    const PipelineOp &op = order[n];
    TimelineEntry entry{ppIndex_, op, 0, 0};
    Stage &st = stages_[static_cast<size_t>(op.chunk)];
    int64_t k = st.index, i = op.microBatch;
    std::string micro = " (micro-batch " + std::to_string(i) + ")";
    if (i < 0 || i >= static_cast<int64_t>(batches.size())) {
      error = "the pipeline schedule runs micro-batch " + std::to_string(i) + " of " +
              std::to_string(batches.size());
      return false;
    }
    if (!setBatch(batches[static_cast<size_t>(i)], iteration, i * dp_ + dpIndex_, error))
      return false;
    if (op.kind == PipelineOp::Forward) {
      if (k > 0) {
        Buffer &in = *buffer(st.prefix + std::string(buffers::kStageInput));
        ElementType type = stageType(dtypes_, st.prefix, buffers::kStageInput);
        if (!comm_->recv(stageRank(k - 1), activationChannel(k - 1), in.data(), in.numElements(),
                         type, "activation into stage " + std::to_string(k) + micro, error))
          return false;
        auto *bytes = static_cast<unsigned char *>(in.data());
        if (st.saved.empty())
          stash[{op.chunk, i}].assign(bytes, bytes + in.numElements() * elementBytes(type));
      }
      // The last stage's forward is its backward's first half: nothing to
      // send on, so it runs once, in the backward.
      entry.start = now();
      if (isLastStage(st)) {
        entry.end = entry.start;
        timeline_.push_back(entry);
        continue;
      }
      SavedSet set;
      if (!st.saved.empty() && !takeFreeSet(st, micro, set, error))
        return false;
      if (!call(*st.forward, error))
        return false;
      if (!st.saved.empty()) {
        swapSaved(st, set);
        held[{op.chunk, i}] = std::move(set);
      }
      entry.end = now();
      timeline_.push_back(entry);
      Buffer &out = *buffer(st.prefix + std::string(buffers::kStageOutput));
      if (!comm_->send(stageRank(k + 1), activationChannel(k), out.data(), out.numElements(),
                       stageType(dtypes_, st.prefix, buffers::kStageOutput),
                       "activation into stage " + std::to_string(k + 1) + micro, error))
        return false;
    } else {
      if (!isLastStage(st)) {
        Buffer &g = *buffer(st.prefix + std::string(buffers::kStageOutputGrad));
        if (!comm_->recv(stageRank(k + 1), gradientChannel(k), g.data(), g.numElements(),
                         stageType(dtypes_, st.prefix, buffers::kStageOutputGrad),
                         "gradient out of stage " + std::to_string(k + 1) + micro, error))
          return false;
      }
      SavedSet set;
      if (!st.saved.empty()) {
        auto it = held.find({op.chunk, i});
        if (it == held.end()) {
          error = "stage " + std::to_string(k) + " runs the backward of" + micro +
                  " before its forward";
          return false;
        }
        set = std::move(it->second);
        held.erase(it);
        swapSaved(st, set);
      } else if (k > 0) {
        Buffer &in = *buffer(st.prefix + std::string(buffers::kStageInput));
        auto &kept = stash[{op.chunk, i}];
        std::memcpy(in.data(), kept.data(), kept.size());
        stash.erase({op.chunk, i});
      }
      entry.start = now();
      bool last = lastBackward[op.chunk] == n;
      if (last)
        startOverlappedReduction(st);
      bool stepped = callTrainStep(st, error);
      if (last)
        activeGradients_ = nullptr; // the next calls' signals are not this batch's
      if (!st.saved.empty()) {
        swapSaved(st, set);
        st.freeSets.push_back(std::move(set));
      }
      if (!stepped)
        return false;
      entry.end = now();
      timeline_.push_back(entry);
      if (isLastStage(st)) {
        lossSum += scalar(std::string(buffers::kLoss));
        addMetrics();
      }
      if (k > 0) {
        Buffer &g = *buffer(st.prefix + std::string(buffers::kStageInputGrad));
        if (!comm_->send(stageRank(k - 1), gradientChannel(k - 1), g.data(), g.numElements(),
                         stageType(dtypes_, st.prefix, buffers::kStageInputGrad),
                         "gradient out of stage " + std::to_string(k) + micro, error))
          return false;
      }
    }
  }
  return true;
}

bool Trainer::evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error,
                       std::vector<std::pair<std::string, double>> *metrics) {
  const plan::Config &c = plan_.config();
  MicroBatch batch;
  double sum = 0;
  std::fill(metricSums_.begin(), metricSums_.end(), 0.0);
  for (int64_t i = 0; i < batches; ++i) {
    if (!data.next(c.micro_batch_size(), c.seq_length(), batch, error))
      return false;
    if (i % dp_ != dpIndex_)
      continue; // another data-parallel rank's batch
    if (!setBatch(batch, 0, i, error))
      return false;
    // Forward only, through the stages in order.
    for (Stage &st : stages_) {
      int64_t k = st.index;
      std::string what = "evaluation activation into stage ";
      if (k > 0) {
        Buffer &in = *buffer(st.prefix + std::string(buffers::kStageInput));
        if (!comm_->recv(stageRank(k - 1), kEvalChannelBase + static_cast<int>(k - 1), in.data(),
                         in.numElements(), stageType(dtypes_, st.prefix, buffers::kStageInput),
                         what + std::to_string(k), error))
          return false;
      }
      if (!call(st.eval ? *st.eval : *st.forward, error))
        return false;
      if (isLastStage(st)) {
        sum += scalar(std::string(buffers::kLoss));
        addMetrics();
      } else {
        Buffer &out = *buffer(st.prefix + std::string(buffers::kStageOutput));
        if (!comm_->send(stageRank(k + 1), kEvalChannelBase + static_cast<int>(k), out.data(),
                         out.numElements(), stageType(dtypes_, st.prefix, buffers::kStageOutput),
                         what + std::to_string(k + 1), error))
          return false;
      }
    }
  }
  if (!sumOver(ppGroup_, sum, "validation loss", error) ||
      !sumOver(dpGroup_, sum, "validation loss", error))
    return false;
  loss = batches ? sum / static_cast<double>(batches) : 0;
  StepStats stats;
  if (!reportMetrics(std::max<int64_t>(batches, 1), stats, error))
    return false;
  if (metrics)
    *metrics = stats.metrics;
  return true;
}

} // namespace mt
