//===- RankPlace.cpp - where one rank sits in a plan's mesh ---------------===//
#include "mt/Runtime/Training/RankPlace.h"

#include "mt/Plan/PlanFile.h"

#include <algorithm>

namespace mt {

bool RankPlace::locate(const plan::Plan &plan, int64_t rank, int64_t ranks, RankPlace &place,
                       std::string &error) {
  place.mesh = planMesh(plan.config());
  const MeshShape &mesh = place.mesh;
  if (mesh.numRanks() > 1 && ranks != mesh.numRanks()) {
    error = "the plan needs " + std::to_string(mesh.numRanks()) + " ranks but runs on " +
            std::to_string(ranks);
    return false;
  }
  if (rank < 0 || rank >= mesh.numRanks()) {
    error = "rank " + std::to_string(rank) + " is outside the plan's " +
            std::to_string(mesh.numRanks()) + " ranks";
    return false;
  }
  place.rank = rank;
  std::vector<int64_t> coords = mesh.coords(rank);
  place.pp = *mesh.axisSize("pp");
  place.dp = *mesh.axisSize("dp");
  place.tp = *mesh.axisSize("tp");
  place.ppIndex = coords[0];
  place.dpIndex = coords[1];
  place.tpIndex = coords[2];
  place.dpGroup = Group{mesh.groupOf(rank, {"dp"}), "dp"};
  place.ppGroup = Group{mesh.groupOf(rank, {"pp"}), "pp"};
  place.tpGroup = Group{mesh.groupOf(rank, {"tp"}), "tp"};
  place.numStages = plan.stages_size() ? plan.stages_size() : 1;
  return true;
}

int64_t RankPlace::stageRank(int64_t virtualStage) const {
  std::vector<int64_t> coords = mesh.coords(rank);
  coords[0] = virtualStage % pp;
  return mesh.rank(coords);
}

TensorShard RankPlace::shardOf(const plan::Parameter &p, int64_t begin, int64_t end,
                               int64_t tpIndex) const {
  TensorShard shard(std::vector<int64_t>(p.shape().begin(), p.shape().end()));
  if (end > 0)
    shard.layers(begin, end);
  if (p.has_tp_shard() && tp > 1)
    shard.split(p.tp_shard().dim(), tp, tpIndex, std::max<int64_t>(p.tp_shard().segments(), 1));
  return shard;
}

bool sumOver(Communicator *comm, const Group &group, double &value, const std::string &what,
             std::string &error) {
  if (group.ranks.size() <= 1)
    return true;
  return comm->allReduce(group, &value, 1, ElementType::F64, ReduceOp::Sum, what, error);
}

} // namespace mt
