//===- LinkTraffic.h - a rank's communication by the links it crosses -*- C++ -*-===//
//
// On a cluster of nodes of G GPUs (NVLink inside a node, InfiniBand across),
// what matters for a layout is which communication leaves the node. Ranks
// fill the nodes in mesh order ([pp, dp, tp], tp fastest), as mpirun and
// srun place consecutive ranks, so a group whose ranks share rank / G stays
// inside one node.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_LINKTRAFFIC_H
#define MT_PLAN_LINKTRAFFIC_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mt {

/// Bytes a rank sends per step, by kind, split by whether the kind's group
/// stays inside a node.
class LinkTraffic {
public:
  explicit LinkTraffic(int64_t gpusPerNode) : gpusPerNode_(gpusPerNode) {}

  /// `bytes` of `kind` sent within `group` (ranks, the sender among them).
  void add(const std::string &kind, const std::vector<int64_t> &group, double bytes);
  /// "inside a node 1.234 MB (tp all-gather ...), across nodes 5.678 MB (...)".
  std::string describe() const;

private:
  int64_t gpusPerNode_;
  std::map<std::string, double> inside_, across_;
};

/// The ranks of mesh [pp, dp, tp] that share `rank`'s coordinates except
/// on the axes of `mask` (bit 0 pp, 1 dp, 2 tp: mt/Runtime/Abi.h's order).
std::vector<int64_t> meshGroup(int64_t rank, int64_t pp, int64_t dp, int64_t tp, int64_t mask);

} // namespace mt

#endif
