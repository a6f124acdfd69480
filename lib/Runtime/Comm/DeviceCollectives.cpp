//===- DeviceCollectives.cpp - a rank's collectives as NCCL calls ---------===//
#include "mt/Runtime/Comm/DeviceCollectives.h"

#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Comm/CompiledCollectives.h"

#include <cstring>

namespace mt {

namespace {

nccl::DataType ncclType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return nccl::Float32;
  case ElementType::F64:
    return nccl::Float64;
  case ElementType::I64:
    return nccl::Int64;
  case ElementType::I32:
    return nccl::Int32;
  case ElementType::BF16:
    return nccl::Bfloat16;
  case ElementType::F16:
    return nccl::Float16;
  }
  return nccl::Float32;
}

/// Rank 0's unique id, on every rank: a gather over the host transport in
/// which the others send nothing of use (the transports have no broadcast).
bool sharedId(const NcclLibrary &nccl, Communicator *host, int64_t ranks, nccl::UniqueId &id,
              std::string &error) {
  std::memset(&id, 0, sizeof id);
  if (!host || host->rank() == 0)
    if (nccl::Result r = nccl.api().GetUniqueId(&id); r != nccl::Success) {
      error = "ncclGetUniqueId failed: " + nccl.describe(r);
      return false;
    }
  if (ranks <= 1 || !host)
    return true;
  Group world{{}, "world"};
  for (int64_t r = 0; r < ranks; ++r)
    world.ranks.push_back(r);
  constexpr int64_t words = sizeof(nccl::UniqueId) / sizeof(int32_t);
  std::vector<int32_t> all(static_cast<size_t>(ranks * words));
  if (!host->allGather(world, &id, all.data(), words, ElementType::I32, "NCCL's unique id",
                       error))
    return false;
  std::memcpy(&id, all.data(), sizeof id);
  return true;
}

} // namespace

std::unique_ptr<DeviceCollectives> DeviceCollectives::open(const NcclLibrary &nccl,
                                                           Communicator *host,
                                                           const MeshShape &mesh, int64_t rank,
                                                           std::string &error) {
  std::unique_ptr<DeviceCollectives> d(new DeviceCollectives(nccl));
  nccl::UniqueId id;
  int64_t ranks = mesh.numRanks();
  if (!sharedId(nccl, host, ranks, id, error))
    return nullptr;
  const nccl::Api &api = nccl.api();
  if (!d->check(api.CommInitRank(&d->world_, static_cast<int>(ranks), id, static_cast<int>(rank)),
                nullptr, "ncclCommInitRank of the world's " + std::to_string(ranks) + " ranks",
                error))
    return nullptr;
  // Every combination of axes, in mask order on every rank: ncclCommSplit is
  // collective over the world.
  for (int64_t mask = 1; mask < (int64_t{1} << MT_ABI_MESH_AXES); ++mask) {
    std::vector<std::string> axes;
    meshAxesOfMask(mask, axes);
    std::vector<int64_t> group = mesh.groupOf(rank, axes);
    nccl::Comm comm = nullptr;
    // The group's first rank names it; the rank's place in it orders it.
    if (!d->check(api.CommSplit(d->world_, static_cast<int>(group.front()),
                                static_cast<int>(mesh.indexInGroup(rank, axes)), &comm, nullptr),
                  d->world_, "ncclCommSplit for mesh axes mask " + std::to_string(mask), error))
      return nullptr;
    d->byMask_[mask] = comm;
  }
  return d;
}

DeviceCollectives::~DeviceCollectives() {
  for (auto &[mask, comm] : byMask_)
    if (comm)
      nccl_.api().CommDestroy(comm);
  if (world_)
    nccl_.api().CommDestroy(world_);
}

bool DeviceCollectives::check(nccl::Result result, nccl::Comm comm, const std::string &what,
                              std::string &error) {
  if (result == nccl::Success)
    return true;
  if (error.empty())
    error = what + ": NCCL failed: " + nccl_.describe(result, comm);
  return false;
}

nccl::Comm DeviceCollectives::commOf(int64_t mask, const std::string &what, std::string &error) {
  auto it = byMask_.find(mask);
  if (it == byMask_.end() || !it->second) {
    error = what + ": no NCCL communicator for mesh axes mask " + std::to_string(mask);
    return nullptr;
  }
  return it->second;
}

bool DeviceCollectives::allReduce(void *data, int64_t count, ElementType type, ReduceOp op,
                                  int64_t mask, void *stream, const std::string &what,
                                  std::string &error) {
  nccl::Comm comm = commOf(mask, what, error);
  return comm && check(nccl_.api().AllReduce(data, data, static_cast<size_t>(count),
                                              ncclType(type),
                                              op == ReduceOp::Sum ? nccl::Sum : nccl::Max, comm,
                                              stream),
                       comm, what, error);
}

bool DeviceCollectives::allGather(const void *in, void *out, int64_t count, ElementType type,
                                  int64_t mask, void *stream, const std::string &what,
                                  std::string &error) {
  nccl::Comm comm = commOf(mask, what, error);
  return comm && check(nccl_.api().AllGather(in, out, static_cast<size_t>(count), ncclType(type),
                                             comm, stream),
                       comm, what, error);
}

bool DeviceCollectives::reduceScatter(const void *in, void *out, int64_t count, ElementType type,
                                      int64_t mask, void *stream, const std::string &what,
                                      std::string &error) {
  nccl::Comm comm = commOf(mask, what, error);
  return comm && check(nccl_.api().ReduceScatter(in, out, static_cast<size_t>(count),
                                                 ncclType(type), nccl::Sum, comm, stream),
                       comm, what, error);
}

bool withStagingBuffer(CudaBackend *gpu, size_t bytes,
                       const std::function<bool(unsigned char *)> &body, std::string &error) {
  if (!gpu) {
    std::vector<unsigned char> host(bytes);
    return body(host.data());
  }
  auto *staged = static_cast<unsigned char *>(gpu->allocate(bytes, error));
  if (!staged) {
    error = "no staging buffer of " + std::to_string(bytes) + " bytes on the GPU: " + error;
    return false;
  }
  bool ok = body(staged);
  // NCCL may still be reading or writing it.
  ok = gpu->synchronize(error) && ok;
  gpu->release(staged);
  return ok;
}

} // namespace mt
