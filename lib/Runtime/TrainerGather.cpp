//===- TrainerGather.cpp - whole tensors and timelines on rank 0 ----------===//
#include "mt/Runtime/Trainer.h"

#include "TrainerInternals.h"

#include <chrono>
#include <cstring>
#include <map>

namespace mt {

using namespace trainer;

bool Trainer::gather(const std::string &prefix, const plan::Parameter &param,
                     std::vector<double> &out, std::string &error) {
  int64_t total = 1;
  for (int64_t d : param.shape())
    total *= d;
  if (rank_ == 0)
    out.assign(static_cast<size_t>(total), 0.0);
  // Pieces come from data-parallel rank 0 of each pipeline stage and each
  // tensor-parallel rank that holds a different piece; a tied parameter's
  // first copy stands for all. The single-stage plan is one stage holding all.
  bool seenWhole = false;
  for (int64_t k = 0; k < numStages_; ++k) {
    int64_t begin = 0, end = 0;
    bool holds = plan_.stages_size() == 0;
    if (!holds)
      for (const plan::Stage &d : plan_.stages())
        if (d.index() == k)
          for (const plan::StageParameter &sp : d.parameters())
            if (sp.name() == param.name()) {
              holds = true;
              begin = sp.layer_begin();
              end = sp.layer_end();
            }
    if (!holds || (end == 0 && seenWhole))
      continue;
    seenWhole = seenWhole || end == 0;
    std::string name = buffers::stagePrefix(k, numStages_) + prefix + param.name();
    int64_t pieces = param.has_tp_shard() ? tp_ : 1;
    for (int64_t t = 0; t < pieces; ++t) {
      TensorShard shard = shardOf(param, begin, end, t);
      int64_t count = shard.numLocalElements();
      int64_t holder = mesh_.rank({k % pp_, 0, t});
      std::vector<double> piece(static_cast<size_t>(count));
      if (holder == rank_) {
        Buffer *b = buffer(name);
        if (!b || b->numElements() != count) {
          error = "no " + std::to_string(count) + "-element buffer '" + name + "' to gather";
          return false;
        }
        for (int64_t i = 0; i < count; ++i)
          piece[static_cast<size_t>(i)] = readScalar(*b, dtypes_[name], i);
        if (rank_ != 0 &&
            !comm_->send(0, kGatherChannel, piece.data(), count, ElementType::F64, name, error))
          return false;
      } else if (rank_ == 0) {
        if (!comm_->recv(holder, kGatherChannel, piece.data(), count, ElementType::F64, name,
                         error))
          return false;
      }
      if (rank_ == 0)
        for (int64_t i = 0; i < count; ++i)
          out[static_cast<size_t>(shard.globalIndex(i))] = piece[static_cast<size_t>(i)];
    }
  }
  return true;
}

bool Trainer::gatherTimeline(std::vector<TimelineEntry> &out, std::string &error) {
  std::vector<int64_t> me = mesh_.coords(rank_);
  if (rank_ == 0)
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
  if (rank_ != 0) {
    std::vector<double> v = pack(timeline_);
    int64_t n = static_cast<int64_t>(timeline_.size());
    return comm_->send(0, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error) &&
           comm_->send(0, kTimelineChannel, v.data(), static_cast<int64_t>(v.size()),
                       ElementType::F64, "timeline", error);
  }
  for (int64_t s = 1; s < pp_; ++s) {
    int64_t peer = mesh_.rank({s, 0, 0}), n = 0;
    if (!comm_->recv(peer, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error))
      return false;
    std::vector<double> v(static_cast<size_t>(6 * n));
    if (!comm_->recv(peer, kTimelineChannel, v.data(), 6 * n, ElementType::F64, "timeline", error))
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
