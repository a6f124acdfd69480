//===- StagePipeline.cpp - a step's passes through the pipeline stages ----===//
#include "mt/Runtime/Training/StageExecutor.h"

#include "TrainerInternals.h"

#include <chrono>
#include <cstring>
#include <map>

namespace mt {

using namespace trainer;

namespace {

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

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

/// A stage that keeps its activations holds each micro-batch's set from its
/// forward to its backward; a stage whose step computes its forward again
/// (the last) keeps its input instead. Both by (chunk, micro-batch).
struct StageExecutor::InFlight {
  std::map<std::pair<int64_t, int64_t>, SavedSet> held;
  std::map<std::pair<int64_t, int64_t>, std::vector<unsigned char>> stash;
};

Buffer &StageExecutor::stageBuffer(const LocalStage &st, std::string_view kind) {
  return *buffers_.find(st.prefix + std::string(kind));
}

ElementType StageExecutor::stageType(const LocalStage &st, std::string_view kind) const {
  return stageElementType(buffers_.dtype(st.prefix + std::string(kind)));
}

bool StageExecutor::runPipeline(int64_t iteration, const std::vector<MicroBatch> &batches,
                                double lossScale, Sums &sums, std::string &error) {
  if (schedule_.empty()) {
    error = "the pipeline schedule was not built when the plan was loaded";
    return false;
  }
  InFlight inFlight;
  timeline_.clear();
  const std::vector<PipelineOp> &order = schedule_[static_cast<size_t>(place_.ppIndex)];
  std::map<int64_t, size_t> lastBackward = lastBackwardOf(order);
  for (size_t n = 0; n < order.size(); ++n) {
    const PipelineOp &op = order[n];
    int64_t i = op.microBatch;
    if (i < 0 || i >= static_cast<int64_t>(batches.size())) {
      error = "the pipeline schedule runs micro-batch " + std::to_string(i) + " of " +
              std::to_string(batches.size());
      return false;
    }
    if (!setBatch(batches[static_cast<size_t>(i)], iteration, i * place_.dp + place_.dpIndex,
                  lossScale, error))
      return false;
    bool ran = op.kind == PipelineOp::Forward
                   ? runForward(op, inFlight, error)
                   : runBackward(op, lastBackward[op.chunk] == n, inFlight, sums, error);
    if (!ran)
      return false;
  }
  // The step's last messages, before anything waits on another group.
  return !nccl_ || nccl_->flush(gpu_, error);
}

bool StageExecutor::sendToStage(int64_t boundary, Flow flow, int64_t peer, int channel,
                                Buffer &b, ElementType type, const std::string &what,
                                std::string &error) {
  if (nccl_)
    return nccl_->send(boundary, flow, b.data(), b.numElements(), type, gpu_, what, error);
  return place_.comm->send(peer, channel, b.data(), b.numElements(), type, what, error);
}

bool StageExecutor::recvFromStage(int64_t boundary, Flow flow, int64_t peer, int channel,
                                  Buffer &b, ElementType type, const std::string &what,
                                  std::string &error) {
  if (nccl_)
    return nccl_->recv(boundary, flow, b.data(), b.numElements(), type, gpu_, what, error);
  return place_.comm->recv(peer, channel, b.data(), b.numElements(), type, what, error);
}

bool StageExecutor::runForward(const PipelineOp &op, InFlight &inFlight, std::string &error) {
  size_t chunk = static_cast<size_t>(op.chunk);
  const LocalStage &st = stages_[chunk];
  int64_t k = st.index, i = op.microBatch;
  std::string micro = " (micro-batch " + std::to_string(i) + ")";
  TimelineEntry entry{place_.ppIndex, op, 0, 0};
  if (k > 0) {
    Buffer &in = stageBuffer(st, buffers::kStageInput);
    ElementType t = stageType(st, buffers::kStageInput);
    if (!recvFromStage(k - 1, Flow::Activations, place_.stageRank(k - 1), activationChannel(k - 1), in, t,
                       "activation into stage " + std::to_string(k) + micro, error))
      return false;
    auto *bytes = static_cast<unsigned char *>(in.data());
    if (st.saved.empty())
      inFlight.stash[{op.chunk, i}].assign(bytes, bytes + in.numElements() * elementBytes(t));
  }
  // The last stage's forward is its backward's first half: nothing to send
  // on, so it runs once, in the backward.
  entry.start = now();
  if (place_.isLastStage(k)) {
    entry.end = entry.start;
    timeline_.push_back(entry);
    return true;
  }
  SavedSet set;
  if (!st.saved.empty() && !takeFreeSet(chunk, micro, set, error))
    return false;
  if (!runner_.call(*st.forward, error))
    return false;
  if (!st.saved.empty()) {
    swapSaved(st, set);
    inFlight.held[{op.chunk, i}] = std::move(set);
  }
  entry.end = now();
  timeline_.push_back(entry);
  Buffer &out = stageBuffer(st, buffers::kStageOutput);
  return sendToStage(k, Flow::Activations, place_.stageRank(k + 1), activationChannel(k), out,
                     stageType(st, buffers::kStageOutput),
                     "activation into stage " + std::to_string(k + 1) + micro, error);
}

bool StageExecutor::runBackward(const PipelineOp &op, bool lastOfChunk, InFlight &inFlight,
                                Sums &sums, std::string &error) {
  size_t chunk = static_cast<size_t>(op.chunk);
  const LocalStage &st = stages_[chunk];
  int64_t k = st.index, i = op.microBatch;
  std::string micro = " (micro-batch " + std::to_string(i) + ")";
  TimelineEntry entry{place_.ppIndex, op, 0, 0};
  if (!place_.isLastStage(k)) {
    Buffer &g = stageBuffer(st, buffers::kStageOutputGrad);
    if (!recvFromStage(k, Flow::Gradients, place_.stageRank(k + 1), gradientChannel(k), g,
                       stageType(st, buffers::kStageOutputGrad),
                       "gradient out of stage " + std::to_string(k + 1) + micro, error))
      return false;
  }
  SavedSet set;
  if (!st.saved.empty()) {
    auto it = inFlight.held.find({op.chunk, i});
    if (it == inFlight.held.end()) {
      error =
          "stage " + std::to_string(k) + " runs the backward of" + micro + " before its forward";
      return false;
    }
    set = std::move(it->second);
    inFlight.held.erase(it);
    swapSaved(st, set);
  } else if (k > 0) {
    Buffer &in = stageBuffer(st, buffers::kStageInput);
    auto &kept = inFlight.stash[{op.chunk, i}];
    std::memcpy(in.data(), kept.data(), kept.size());
    inFlight.stash.erase({op.chunk, i});
  }
  entry.start = now();
  if (lastOfChunk && lastBackward_)
    lastBackward_(st);
  bool stepped = callTrainStep(st, error);
  if (lastOfChunk)
    runner_.signalGradientsTo(nullptr); // the next calls' signals are not this batch's
  if (!st.saved.empty()) {
    swapSaved(st, set);
    state_[chunk].freeSets.push_back(std::move(set));
  }
  if (!stepped)
    return false;
  entry.end = now();
  timeline_.push_back(entry);
  if (place_.isLastStage(k))
    addLastStage(sums);
  if (k == 0)
    return true;
  Buffer &g = stageBuffer(st, buffers::kStageInputGrad);
  return sendToStage(k - 1, Flow::Gradients, place_.stageRank(k - 1), gradientChannel(k - 1), g,
                     stageType(st, buffers::kStageInputGrad),
                     "gradient out of stage " + std::to_string(k) + micro, error);
}

bool StageExecutor::gatherTimeline(std::vector<TimelineEntry> &out, std::string &error) {
  const MeshShape &mesh = place_.mesh;
  int64_t rank = place_.rank;
  std::vector<int64_t> me = mesh.coords(rank);
  if (rank == 0)
    out = timeline_;
  if (me[1] != 0 || me[2] != 0)
    return true; // data- and tensor-parallel peers ran the same schedule
  auto pack = [](const std::vector<TimelineEntry> &entries) {
    std::vector<double> v;
    for (const TimelineEntry &e : entries)
      v.insert(v.end(), {static_cast<double>(e.stage), e.op.kind == PipelineOp::Forward ? 0.0 : 1.0,
                         static_cast<double>(e.op.microBatch), static_cast<double>(e.op.chunk),
                         e.start, e.end});
    return v;
  };
  Communicator *comm = place_.comm;
  if (rank != 0) {
    std::vector<double> v = pack(timeline_);
    int64_t n = static_cast<int64_t>(timeline_.size());
    return comm->send(0, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error) &&
           comm->send(0, kTimelineChannel, v.data(), static_cast<int64_t>(v.size()),
                      ElementType::F64, "timeline", error);
  }
  for (int64_t s = 1; s < place_.pp; ++s) {
    int64_t peer = mesh.rank({s, 0, 0}), n = 0;
    if (!comm->recv(peer, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error))
      return false;
    std::vector<double> v(static_cast<size_t>(6 * n));
    if (!comm->recv(peer, kTimelineChannel, v.data(), 6 * n, ElementType::F64, "timeline", error))
      return false;
    for (int64_t i = 0; i < n; ++i) {
      const double *e = &v[static_cast<size_t>(6 * i)];
      out.push_back(
          TimelineEntry{static_cast<int64_t>(e[0]),
                        PipelineOp{e[1] == 0 ? PipelineOp::Forward : PipelineOp::Backward,
                                   static_cast<int64_t>(e[2]), static_cast<int64_t>(e[3])},
                        e[4], e[5]});
    }
  }
  return true;
}

} // namespace mt
