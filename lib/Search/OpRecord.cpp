//===- OpRecord.cpp - the kernels and collectives of a function -------------===//
#include "mt/Search/OpRecord.h"

#include "mt/Plan/LinkTraffic.h"

#include <algorithm>

namespace mt {

MeshLinks meshLinks(const Cluster &cluster, int64_t pp, int64_t dp, int64_t tp) {
  MeshLinks mesh;
  int64_t sizes[3] = {pp, dp, tp};
  int64_t world = pp * dp * tp;
  for (int axis = 0; axis < 3; ++axis) {
    mesh.sizes[axis] = sizes[axis];
    // The slowest of the axis's groups (a group of 3 on nodes of 8 may
    // straddle two), over the ranks of a few nodes: the pattern repeats.
    mesh.links[axis] = cluster.ringLink(meshGroup(0, pp, dp, tp, int64_t{1} << axis));
    for (int64_t r = 1; r < std::min<int64_t>(world, 4 * cluster.gpusPerNode); ++r) {
      LinkSpec l = cluster.ringLink(meshGroup(r, pp, dp, tp, int64_t{1} << axis));
      if (l.bandwidth < mesh.links[axis].bandwidth)
        mesh.links[axis] = l;
    }
  }
  return mesh;
}

namespace {

double kernelSeconds(const OpRecord &op, const ChipSpec &chip) {
  double seconds = op.bytes / chip.memoryBandwidth;
  if (op.flops > 0 && op.m >= 1) {
    double peak = op.sixteenBit ? chip.peakFlops16 : chip.peakFlops32;
    double efficiency = chip.gemmEfficiency(static_cast<int64_t>(op.m), static_cast<int64_t>(op.n),
                                            static_cast<int64_t>(op.k));
    seconds = std::max(seconds, op.flops / (peak * efficiency));
  }
  return seconds + chip.kernelOverhead;
}

double collectiveTime(const OpRecord &op, const MeshLinks &mesh) {
  int64_t n = 1;
  LinkSpec link{1e30, 0};
  for (int axis = 0; axis < 3; ++axis) {
    if (!(op.axes & (int64_t{1} << axis)))
      continue;
    n *= mesh.sizes[axis];
    // A group over several axes runs at its slowest one's link.
    if (mesh.links[axis].bandwidth < link.bandwidth)
      link = mesh.links[axis];
  }
  return collectiveSeconds(op.collective, op.bytes, n, link);
}

} // namespace

FunctionCost costOf(const std::vector<OpRecord> &ops, const ChipSpec &chip, const MeshLinks &mesh) {
  FunctionCost cost;
  double clock = 0, commFree = 0;
  std::vector<double> ends(ops.size(), 0.0);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpRecord &op = ops[i];
    switch (op.kind) {
    case OpRecord::Wait:
      if (op.waitsFor >= 0 && static_cast<size_t>(op.waitsFor) < i)
        clock = std::max(clock, ends[static_cast<size_t>(op.waitsFor)]);
      break;
    case OpRecord::Collective: {
      double seconds = collectiveTime(op, mesh);
      cost.communication += seconds;
      cost.machine += seconds / std::max(chip.cores, 1.0);
      commFree = std::max(clock, commFree) + seconds;
      ends[i] = commFree;
      if (!op.async)
        clock = commFree;
      break;
    }
    case OpRecord::Kernel: {
      double seconds = kernelSeconds(op, chip);
      cost.kernels += seconds;
      double cores = std::max(chip.cores, 1.0);
      cost.machine += seconds * (op.flops > 0 ? std::min(chip.gemmThreads, cores) : 1.0) / cores;
      clock += seconds;
      ++cost.launches;
      cost.contractionFlops += op.flops;
      if (op.forward)
        cost.forwardFlops += op.flops;
      break;
    }
    }
  }
  cost.seconds = std::max(clock, commFree);
  return cost;
}

bool recordsAt(const std::vector<OpRecord> &one, const std::vector<OpRecord> &two, double m,
               std::vector<OpRecord> &out) {
  if (one.size() != two.size())
    return false;
  out = one;
  auto at = [m](double a, double b) { return a + (b - a) * (m - 1); };
  for (size_t i = 0; i < one.size(); ++i) {
    const OpRecord &a = one[i], &b = two[i];
    if (a.kind != b.kind || a.axes != b.axes || a.waitsFor != b.waitsFor)
      return false;
    OpRecord &r = out[i];
    r.bytes = at(a.bytes, b.bytes);
    r.flops = at(a.flops, b.flops);
    r.m = at(a.m, b.m);
    r.n = at(a.n, b.n);
    r.k = at(a.k, b.k);
  }
  return true;
}

} // namespace mt
