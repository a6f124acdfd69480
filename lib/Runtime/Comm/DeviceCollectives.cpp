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

bool DeviceCollectives::openPipeline(int64_t numStages, int64_t worldSize, int64_t rank,
                                     const std::function<int64_t(int64_t)> &stageRank,
                                     std::string &error) {
  for (int64_t b = 0; b + 1 < numStages; ++b) {
    int64_t from = stageRank(b), to = stageRank(b + 1);
    bool member = rank == from || rank == to;
    nccl::Comm comm = nullptr;
    // The pair's sender names it; the sender is index 0.
    int color = member ? static_cast<int>(b * worldSize + from) : nccl::kSplitNoColor;
    if (!check(nccl_.api().CommSplit(world_, color, rank == from ? 0 : 1, &comm, nullptr), world_,
               "ncclCommSplit for pipeline boundary " + std::to_string(b), error))
      return false;
    if (member)
      boundaries_[b] = Boundary{comm, rank == from ? 1 : 0};
  }
  return true;
}

bool DeviceCollectives::send(int64_t boundary, const void *data, int64_t count, ElementType type,
                             CudaBackend *gpu, const std::string &what, std::string &error) {
  size_t bytes = static_cast<size_t>(count * elementBytes(type));
  unsigned char *copy = nullptr;
  if (gpu) {
    copy = static_cast<unsigned char *>(gpu->allocate(bytes, error));
    if (!copy) {
      error = what + ": no GPU memory for the message's copy: " + error;
      return false;
    }
  } else {
    hostCopies_.emplace_back(bytes);
    copy = hostCopies_.back().data();
  }
  // The compiled function that wrote `data` has finished (the runner waits
  // for the GPU after each call), and the next may overwrite it.
  std::memcpy(copy, data, bytes);
  queued_.push_back(Queued{boundary, copy, count, type, what});
  return true;
}

bool DeviceCollectives::recv(int64_t boundary, void *data, int64_t count, ElementType type,
                             CudaBackend *gpu, const std::string &what, std::string &error) {
  Queued in{boundary, nullptr, count, type, what};
  return exchange(&in, data, gpu, error);
}

bool DeviceCollectives::flush(CudaBackend *gpu, std::string &error) {
  return queued_.empty() || exchange(nullptr, nullptr, gpu, error);
}

bool DeviceCollectives::exchange(const Queued *recv, void *into, CudaBackend *gpu,
                                 std::string &error) {
  const nccl::Api &api = nccl_.api();
  void *stream = gpu ? gpu->stream() : nullptr;
  std::vector<Queued> sends;
  sends.swap(queued_);
  auto boundaryOf = [&](const Queued &q) -> const Boundary * {
    auto it = boundaries_.find(q.boundary);
    if (it == boundaries_.end() && error.empty())
      error = q.what + ": this rank holds no side of pipeline boundary " +
              std::to_string(q.boundary);
    return it == boundaries_.end() ? nullptr : &it->second;
  };
  // NCCL's words for a failed group are in the communicator that failed.
  nccl::Comm last = nullptr;
  bool ok = check(api.GroupStart(), nullptr, "ncclGroupStart", error);
  for (const Queued &q : sends) {
    const Boundary *b = ok ? boundaryOf(q) : nullptr;
    ok = b && check(api.Send(q.staged, static_cast<size_t>(q.count), ncclType(q.type), b->peer,
                             b->comm, stream),
                    b->comm, q.what, error);
    last = b ? b->comm : last;
  }
  if (recv && ok) {
    const Boundary *b = boundaryOf(*recv);
    ok = b && check(api.Recv(into, static_cast<size_t>(recv->count), ncclType(recv->type),
                             b->peer, b->comm, stream),
                    b->comm, recv->what, error);
    last = b ? b->comm : last;
  }
  // The group ends even after a failure inside it, so NCCL's state stays whole.
  ok = check(api.GroupEnd(), last, recv ? recv->what : "the pipeline's sends", error) && ok;
  // The host reads a received activation next (and frees the copies sent).
  if (gpu) {
    ok = gpu->synchronize(error) && ok;
    for (const Queued &q : sends)
      gpu->release(q.staged);
  }
  hostCopies_.clear();
  return ok;
}

DeviceCollectives::~DeviceCollectives() {
  // After a failure, work still queued may wait forever on a peer that is
  // gone; ncclCommDestroy would wait with it, ncclCommAbort does not.
  auto close = failed_ ? nccl_.api().CommAbort : nccl_.api().CommDestroy;
  for (auto &[b, boundary] : boundaries_)
    if (boundary.comm)
      close(boundary.comm);
  for (auto &[mask, comm] : byMask_)
    if (comm)
      close(comm);
  if (world_)
    close(world_);
}

bool DeviceCollectives::check(nccl::Result result, nccl::Comm comm, const std::string &what,
                              std::string &error) {
  if (result == nccl::Success)
    return true;
  failed_ = true;
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
