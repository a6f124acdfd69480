//===- RankPlace.h - where one rank sits in a plan's mesh -------*- C++ -*-===//
//
// The mesh is [pp, dp, tp]. A rank's coordinates decide which virtual
// pipeline stages it runs, which micro-batches it takes, and which piece of
// every parameter it holds; the trainer's parts all ask this one value.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_RANKPLACE_H
#define MT_RUNTIME_TRAINING_RANKPLACE_H

#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Sharding/MeshShape.h"
#include "mt/Sharding/TensorShard.h"

#include "plan.pb.h"

#include <string>

namespace mt {

struct RankPlace {
  int64_t rank = 0;
  MeshShape mesh;
  int64_t pp = 1, ppIndex = 0, dp = 1, dpIndex = 0, tp = 1, tpIndex = 0;
  /// The plan's virtual pipeline stages (1 unpipelined); this rank runs
  /// those with index % pp == ppIndex.
  int64_t numStages = 1;
  Group ppGroup, dpGroup, tpGroup;
  /// Carries this rank's messages (null on a one-rank run).
  Communicator *comm = nullptr;

  /// `rank`'s place in `plan`'s mesh, run on `ranks` ranks in all; false
  /// with `error` when the plan needs another number or the rank is outside.
  static bool locate(const plan::Plan &plan, int64_t rank, int64_t ranks, RankPlace &place,
                     std::string &error);

  /// The rank running virtual stage `virtualStage` with this rank's data-
  /// and tensor-parallel coordinates.
  int64_t stageRank(int64_t virtualStage) const;
  bool runsStage(int64_t virtualStage) const { return virtualStage % pp == ppIndex; }
  bool isLastStage(int64_t virtualStage) const { return virtualStage == numStages - 1; }
  /// The piece of `p` held on tensor-parallel rank `tpIndex`: layers
  /// [begin, end) of a stacked parameter, or all of it when end is 0.
  TensorShard shardOf(const plan::Parameter &p, int64_t begin, int64_t end, int64_t tpIndex) const;
};

/// Sums `value` over `group` (nothing to do for a group of one).
bool sumOver(Communicator *comm, const Group &group, double &value, const std::string &what,
             std::string &error);

} // namespace mt

#endif // MT_RUNTIME_TRAINING_RANKPLACE_H
