//===- ParameterStore.cpp - this rank's pieces of the parameters ----------===//
#include "mt/Runtime/Training/ParameterStore.h"

#include "TrainerInternals.h"
#include "mt/Runtime/Code/Initializer.h"

#include <algorithm>
#include <map>

namespace mt {

using namespace trainer;

std::string ParameterSlice::named(buffers::Role role) const {
  return prefix + buffers::of(role, param->name());
}

namespace {

/// The virtual stages holding each whole parameter (a layer range of 0).
std::map<std::string, std::vector<int64_t>> wholeHoldersOf(const plan::Plan &plan) {
  std::map<std::string, std::vector<int64_t>> holders;
  for (const plan::Stage &st : plan.stages())
    for (const plan::StageParameter &sp : st.parameters())
      if (sp.layer_end() == 0)
        holders[sp.name()].push_back(st.index());
  return holders;
}

} // namespace

std::vector<std::vector<int64_t>> tiedGroups(const plan::Plan &plan, const RankPlace &place) {
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::vector<int64_t>> seen; // sets of pipeline ranks
  for (const auto &[name, stages] : wholeHoldersOf(plan)) {
    std::vector<int64_t> pipelineRanks, group;
    for (int64_t h : stages)
      pipelineRanks.push_back(h % place.pp);
    std::sort(pipelineRanks.begin(), pipelineRanks.end());
    pipelineRanks.erase(std::unique(pipelineRanks.begin(), pipelineRanks.end()),
                        pipelineRanks.end());
    if (pipelineRanks.size() < 2 ||
        std::find(seen.begin(), seen.end(), pipelineRanks) != seen.end())
      continue;
    seen.push_back(pipelineRanks);
    if (std::find(pipelineRanks.begin(), pipelineRanks.end(), place.ppIndex) !=
        pipelineRanks.end())
      for (int64_t h : stages)
        group.push_back(place.stageRank(h));
    std::sort(group.begin(), group.end());
    group.erase(std::unique(group.begin(), group.end()), group.end());
    groups.push_back(group);
  }
  return groups;
}

bool ParameterStore::layOut(const plan::Plan &plan, const RankPlace &place, std::string &error) {
  plan_ = &plan;
  place_ = &place;
  slices_.clear();
  std::map<std::string, const plan::Parameter *> byName;
  for (const plan::Parameter &p : plan.parameters())
    byName[p.name()] = &p;
  std::map<std::string, std::vector<int64_t>> wholeHolders = wholeHoldersOf(plan);
  for (int64_t k = place.ppIndex; k < place.numStages; k += place.pp) {
    std::string prefix = buffers::stagePrefix(k, place.numStages);
    auto addSlice = [&](const plan::Parameter &p, int64_t begin, int64_t end) -> bool {
      ParameterSlice sl;
      sl.param = &p;
      sl.stage = k;
      sl.prefix = prefix;
      sl.buffer = prefix + p.name();
      sl.accumulator = sl.named(buffers::Role::GradAccumulator);
      sl.layout = place.shardOf(p, begin, end, place.tpIndex);
      std::string bad = sl.layout.check();
      if (!bad.empty()) {
        error = "parameter '" + p.name() + "' cannot be laid out on rank " +
                std::to_string(place.rank) + ": " + bad;
        return false;
      }
      sl.shape = sl.layout.localShape();
      sl.elements = sl.layout.numLocalElements();
      // verifyPlan checked it is over tp (the only sum of a parameter's
      // gradient besides dp's).
      sl.partialOverTp = p.grad_partial_over_size() > 0;
      // A parameter replicated over tensor-parallel ranks counts once in the
      // gradient norm.
      sl.ownsNorm = p.has_tp_shard() || place.tpIndex == 0;
      auto holders = wholeHolders.find(p.name());
      if (end == 0 && holders != wholeHolders.end() && holders->second.size() > 1) {
        sl.ownsNorm = sl.ownsNorm && holders->second.front() == k;
        for (int64_t h : holders->second)
          sl.tiedRanks.push_back(place.stageRank(h));
        std::sort(sl.tiedRanks.begin(), sl.tiedRanks.end());
        sl.tiedRanks.erase(std::unique(sl.tiedRanks.begin(), sl.tiedRanks.end()),
                           sl.tiedRanks.end());
      }
      slices_.push_back(sl);
      return true;
    };
    if (plan.stages_size() == 0) {
      for (const plan::Parameter &p : plan.parameters())
        if (!addSlice(p, 0, 0))
          return false;
      continue;
    }
    const plan::Stage *desc = nullptr;
    for (const plan::Stage &d : plan.stages())
      if (d.index() == k)
        desc = &d;
    if (!desc) {
      error = "the plan does not describe pipeline stage " + std::to_string(k);
      return false;
    }
    for (const plan::StageParameter &sp : desc->parameters()) {
      auto it = byName.find(sp.name());
      if (it == byName.end() || sp.layer_begin() < 0 || sp.layer_end() < sp.layer_begin() ||
          (sp.layer_end() > 0 &&
           (it->second->shape_size() == 0 || sp.layer_end() > it->second->shape(0)))) {
        error = "stage " + std::to_string(k) + " holds an unknown or out-of-range parameter '" +
                sp.name() + "'";
        return false;
      }
      if (!addSlice(*it->second, sp.layer_begin(), sp.layer_end()))
        return false;
    }
  }
  return true;
}

void ParameterStore::initialize(BufferStore &buffers, uint64_t seed) const {
  for (const ParameterSlice &sl : slices_) {
    const plan::Parameter &p = *sl.param;
    plan::TensorSpec spec;
    spec.set_name(sl.buffer);
    for (int64_t d : sl.shape)
      spec.add_shape(d);
    spec.set_dtype(p.dtype());
    Buffer &b = buffers.ensure(spec);
    InitKind kind = p.init().kind() == plan::Init::NORMAL  ? InitKind::Normal
                    : p.init().kind() == plan::Init::ZEROS ? InitKind::Zeros
                                                           : InitKind::Ones;
    // Keyed by the global element index: a stage's slice gets exactly the
    // values the unsplit tensor has there.
    uint64_t key = parameterKey(seed, p.name());
    for (int64_t i = 0; i < sl.elements; ++i) {
      double v =
          initialValue(kind, p.init().std(), key, static_cast<uint64_t>(sl.layout.globalIndex(i)));
      if (p.dtype() == plan::F64)
        b.as<double>()[i] = v;
      else
        b.as<float>()[i] = static_cast<float>(v);
    }
    // Gradients accumulate at the slice's size; the optimizer state takes
    // the shapes the optimizer function declares (shards with the
    // distributed optimizer), zero-initialized when first used.
    spec.set_name(sl.accumulator);
    buffers.ensure(spec);
  }
}

bool ParameterStore::gather(const std::string &prefix, const plan::Parameter &param,
                            const BufferStore &buffers, std::vector<double> &out,
                            std::string &error) const {
  const RankPlace &place = *place_;
  int64_t total = 1;
  for (int64_t d : param.shape())
    total *= d;
  if (place.rank == 0)
    out.assign(static_cast<size_t>(total), 0.0);
  // Pieces come from data-parallel rank 0 of each pipeline stage and each
  // tensor-parallel rank that holds a different piece; a tied parameter's
  // first copy stands for all. The single-stage plan is one stage holding all.
  bool seenWhole = false;
  for (int64_t k = 0; k < place.numStages; ++k) {
    int64_t begin = 0, end = 0;
    bool holds = plan_->stages_size() == 0;
    if (!holds)
      for (const plan::Stage &d : plan_->stages())
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
    std::string name = buffers::stagePrefix(k, place.numStages) + prefix + param.name();
    int64_t pieces = param.has_tp_shard() ? place.tp : 1;
    for (int64_t t = 0; t < pieces; ++t) {
      TensorShard shard = place.shardOf(param, begin, end, t);
      int64_t count = shard.numLocalElements();
      int64_t holder = place.mesh.rank({k % place.pp, 0, t});
      std::vector<double> piece(static_cast<size_t>(count));
      if (holder == place.rank) {
        Buffer *b = buffers.find(name);
        if (!b || b->numElements() != count) {
          error = "no " + std::to_string(count) + "-element buffer '" + name + "' to gather";
          return false;
        }
        for (int64_t i = 0; i < count; ++i)
          piece[static_cast<size_t>(i)] = buffers.read(name, i);
        if (place.rank != 0 && !place.comm->send(0, kGatherChannel, piece.data(), count,
                                                 ElementType::F64, name, error))
          return false;
      } else if (place.rank == 0) {
        if (!place.comm->recv(holder, kGatherChannel, piece.data(), count, ElementType::F64, name,
                              error))
          return false;
      }
      if (place.rank == 0)
        for (int64_t i = 0; i < count; ++i)
          out[static_cast<size_t>(shard.globalIndex(i))] = piece[static_cast<size_t>(i)];
    }
  }
  return true;
}

} // namespace mt
