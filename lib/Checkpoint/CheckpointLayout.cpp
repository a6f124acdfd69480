//===- CheckpointLayout.cpp - which pieces of which tensors a rank holds ---===//
#include "mt/Checkpoint/CheckpointLayout.h"

#include "mt/Plan/BufferNames.h"
#include "mt/Plan/PlanFile.h"

#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace mt {

TensorShard PieceShape::shard(const std::vector<int64_t> &globalShape) const {
  TensorShard s(globalShape);
  if (layerEnd > 0)
    s.layers(layerBegin, layerEnd);
  if (splitDim >= 0)
    s.split(splitDim, parts, part, segments);
  return s;
}

void PieceShape::store(ckpt::Piece &out) const {
  out.set_layer_begin(layerBegin);
  out.set_layer_end(layerEnd);
  out.set_split_dim(splitDim);
  out.set_parts(parts);
  out.set_part(part);
  out.set_segments(segments);
  out.set_flat_begin(flatBegin);
  out.set_flat_end(flatEnd);
}

PieceShape PieceShape::from(const ckpt::Piece &p) {
  PieceShape s;
  s.layerBegin = p.layer_begin();
  s.layerEnd = p.layer_end();
  s.splitDim = p.split_dim();
  s.parts = p.parts();
  s.part = p.part();
  s.segments = p.segments();
  s.flatBegin = p.flat_begin();
  s.flatEnd = p.flat_end();
  return s;
}

int64_t HeldPiece::elementBytes() const { return dtypeBytes(param->dtype()); }

const char *roleName(ckpt::Role role) {
  switch (role) {
  case ckpt::PARAM:
    return "param";
  case ckpt::EXP_AVG:
    return "exp_avg";
  case ckpt::EXP_AVG_SQ:
    return "exp_avg_sq";
  default:
    return "unknown";
  }
}

std::string stateBufferName(const std::string &prefix, ckpt::Role role, const std::string &name) {
  switch (role) {
  case ckpt::EXP_AVG:
    return prefix + buffers::of(buffers::Role::ExpAvg, name);
  case ckpt::EXP_AVG_SQ:
    return prefix + buffers::of(buffers::Role::ExpAvgSq, name);
  default:
    return prefix + name;
  }
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool heldPieces(const plan::Plan &plan, int64_t rank, std::vector<HeldPiece> &out,
                std::string &error) {
  out.clear();
  const plan::Config &c = plan.config();
  MeshShape mesh = planMesh(c);
  if (rank < 0 || rank >= mesh.numRanks()) {
    error = "rank " + std::to_string(rank) + " is outside the plan's " +
            std::to_string(mesh.numRanks()) + " ranks";
    return false;
  }
  std::vector<int64_t> coords = mesh.coords(rank);
  int64_t pp = mesh.sizes()[0], dp = mesh.sizes()[1], tp = mesh.sizes()[2];
  int64_t ppIndex = coords[0], dpIndex = coords[1], tpIndex = coords[2];
  int64_t numStages = plan.stages_size() ? plan.stages_size() : 1;
  bool distributed = c.parallel().distributed_optimizer();

  std::map<std::string, const plan::Parameter *> byName;
  for (const plan::Parameter &p : plan.parameters())
    byName[p.name()] = &p;
  // The first virtual stage that holds each whole (unstacked) parameter
  // saves it; the others hold tied copies.
  std::map<std::string, int64_t> firstHolder;
  for (const plan::Stage &st : plan.stages())
    for (const plan::StageParameter &sp : st.parameters())
      if (sp.layer_end() == 0 &&
          (!firstHolder.count(sp.name()) || st.index() < firstHolder[sp.name()]))
        firstHolder[sp.name()] = st.index();

  for (int64_t k = ppIndex; k < numStages; k += pp) {
    std::string prefix = buffers::stagePrefix(k, numStages);
    std::vector<plan::StageParameter> held;
    if (plan.stages_size() == 0) {
      for (const plan::Parameter &p : plan.parameters()) {
        plan::StageParameter sp;
        sp.set_name(p.name());
        held.push_back(sp);
      }
    } else {
      const plan::Stage *desc = nullptr;
      for (const plan::Stage &d : plan.stages())
        if (d.index() == k)
          desc = &d;
      if (!desc) {
        error = "the plan does not describe pipeline stage " + std::to_string(k);
        return false;
      }
      held.assign(desc->parameters().begin(), desc->parameters().end());
    }
    for (const plan::StageParameter &sp : held) {
      auto it = byName.find(sp.name());
      if (it == byName.end()) {
        error = "stage " + std::to_string(k) + " holds an unknown parameter '" + sp.name() + "'";
        return false;
      }
      const plan::Parameter &p = *it->second;
      PieceShape shape;
      shape.layerBegin = sp.layer_begin();
      shape.layerEnd = sp.layer_end();
      bool split = p.has_tp_shard() && tp > 1;
      if (split) {
        shape.splitDim = p.tp_shard().dim();
        shape.parts = tp;
        shape.part = tpIndex;
        shape.segments = std::max<int64_t>(p.tp_shard().segments(), 1);
      }
      TensorShard layout = shape.shard(std::vector<int64_t>(p.shape().begin(), p.shape().end()));
      std::string bad = layout.check();
      if (!bad.empty()) {
        error = "parameter '" + p.name() + "' cannot be laid out on rank " + std::to_string(rank) +
                ": " + bad;
        return false;
      }
      int64_t n = layout.numLocalElements();
      // One copy of each element is saved: tp rank 0 of a parameter
      // replicated over tp, the first stage of a tied one, dp rank 0 of
      // whatever the data-parallel ranks replicate.
      bool unique =
          (split || tpIndex == 0) &&
          (sp.layer_end() > 0 || !firstHolder.count(p.name()) || firstHolder[p.name()] == k);
      for (ckpt::Role role : {ckpt::PARAM, ckpt::EXP_AVG, ckpt::EXP_AVG_SQ}) {
        HeldPiece h;
        h.param = &p;
        h.role = role;
        h.buffer = stateBufferName(prefix, role, p.name());
        h.shape = shape;
        h.shape.flatBegin = 0;
        h.shape.flatEnd = n;
        h.saves = unique && dpIndex == 0;
        if (role != ckpt::PARAM && distributed) {
          // ZeRO-1: data-parallel rank i keeps elements [i s, (i+1) s) of
          // the moments, s = ceil(n / dp), the last shard padded.
          int64_t s = (n + dp - 1) / dp;
          h.shape.flatBegin = std::min(dpIndex * s, n);
          h.shape.flatEnd = std::min(h.shape.flatBegin + s, n);
          h.saves = unique;
        }
        out.push_back(h);
      }
    }
  }
  return true;
}

std::vector<ckpt::Tensor> logicalTensors(const plan::Plan &plan) {
  std::vector<ckpt::Tensor> out;
  for (const plan::Parameter &p : plan.parameters())
    for (ckpt::Role role : {ckpt::PARAM, ckpt::EXP_AVG, ckpt::EXP_AVG_SQ}) {
      ckpt::Tensor t;
      t.set_name(p.name());
      t.set_role(role);
      for (int64_t d : p.shape())
        t.add_shape(d);
      t.set_dtype(p.dtype());
      t.set_unpadded_rows(p.unpadded_rows());
      out.push_back(t);
    }
  return out;
}

namespace {

/// The shape a tensor has without vocabulary padding.
std::vector<int64_t> unpaddedShape(const ckpt::Tensor &t) {
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  if (t.unpadded_rows() > 0 && !shape.empty())
    shape[0] = t.unpadded_rows();
  return shape;
}

std::string tensorKey(const ckpt::Tensor &t) {
  return t.name() + (t.role() == ckpt::PARAM ? "" : std::string(" (") + roleName(t.role()) + ")");
}

} // namespace

std::string modelFingerprint(const std::vector<ckpt::Tensor> &tensors) {
  std::ostringstream canonical;
  for (const ckpt::Tensor &t : tensors)
    canonical << t.name() << ';' << roleName(t.role()) << ';' << shapeText(unpaddedShape(t)) << ';'
              << plan::DType_Name(t.dtype()) << '\n';
  std::string text = canonical.str();
  uint64_t h = llvm::xxh3_64bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string modelDifferences(const std::vector<ckpt::Tensor> &saved,
                             const std::vector<ckpt::Tensor> &target) {
  std::map<std::string, const ckpt::Tensor *> have;
  for (const ckpt::Tensor &t : saved)
    have[tensorKey(t)] = &t;
  std::ostringstream diff;
  std::map<std::string, bool> wanted;
  // A parameter that differs is named once; its moments differ with it.
  std::map<std::string, bool> paramDiffers;
  for (const ckpt::Tensor &t : target) {
    std::string key = tensorKey(t);
    wanted[key] = true;
    if (t.role() != ckpt::PARAM && paramDiffers[t.name()])
      continue;
    auto it = have.find(key);
    std::ostringstream line;
    if (it == have.end()) {
      line << "tensor '" << key << "' of shape " << shapeText({t.shape().begin(), t.shape().end()})
           << " is not in the checkpoint\n";
    } else {
      const ckpt::Tensor &s = *it->second;
      if (unpaddedShape(s) != unpaddedShape(t))
        line << "tensor '" << key << "' has shape "
             << shapeText({s.shape().begin(), s.shape().end()})
             << (s.unpadded_rows() ? " (" + std::to_string(s.unpadded_rows()) + " rows unpadded)"
                                   : "")
             << " in the checkpoint but " << shapeText({t.shape().begin(), t.shape().end()})
             << (t.unpadded_rows() ? " (" + std::to_string(t.unpadded_rows()) + " rows unpadded)"
                                   : "")
             << " in the plan\n";
      else if (s.dtype() != t.dtype())
        line << "tensor '" << key << "' is " << plan::DType_Name(s.dtype())
             << " in the checkpoint but " << plan::DType_Name(t.dtype()) << " in the plan\n";
    }
    if (!line.str().empty() && t.role() == ckpt::PARAM)
      paramDiffers[t.name()] = true;
    diff << line.str();
  }
  for (const ckpt::Tensor &t : saved)
    if (!wanted.count(tensorKey(t)) && (t.role() == ckpt::PARAM || wanted.count(t.name())))
      diff << "the checkpoint's tensor '" << tensorKey(t) << "' of shape "
           << shapeText({t.shape().begin(), t.shape().end()}) << " is not in the plan's model\n";
  return diff.str();
}

} // namespace mt
