//===- DeviceCollectives.cpp - a rank's collectives as NCCL calls ---------===//
#include "mt/Runtime/Comm/DeviceCollectives.h"

#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Comm/CompiledCollectives.h"

#include <algorithm>
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
  d->rank_ = rank;
  for (int64_t r = 0; r < ranks; ++r)
    d->members_[nullptr].push_back(r); // the world's, until it exists
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
    d->members_[comm] = group;
  }
  return d;
}

bool DeviceCollectives::openPipeline(int64_t numStages, int64_t worldSize, int64_t rank,
                                     const std::function<int64_t(int64_t)> &stageRank,
                                     CudaBackend *gpu, std::string &error) {
  // Checked alike on every rank before any split: a rank that failed alone
  // would leave the others waiting in the next one.
  std::map<int64_t, int> sendingLinks; // by sending rank (this rank's dp/tp slice)
  for (int64_t b = 0; b + 1 < numStages; ++b) {
    ++sendingLinks[stageRank(b)];
    ++sendingLinks[stageRank(b + 1)];
  }
  for (const auto &[sender, links] : sendingLinks)
    if (gpu && links > kStartedStream) {
      error = "rank " + std::to_string(sender) + " would send on " + std::to_string(links) +
              " pipeline communicators, more than the " + std::to_string(kStartedStream) +
              " side streams a rank has for them (fewer virtual stages, or --collectives=host)";
      return false;
    }
  int sideStreams = 0;
  for (int64_t b = 0; b + 1 < numStages; ++b)
    for (Flow flow : {Flow::Activations, Flow::Gradients}) {
      int64_t from = stageRank(flow == Flow::Activations ? b : b + 1);
      int64_t to = stageRank(flow == Flow::Activations ? b + 1 : b);
      if (from == to) {
        error = "pipeline stages " + std::to_string(b) + " and " + std::to_string(b + 1) +
                " are both on rank " + std::to_string(from) +
                ": their messages cannot go through NCCL (use --collectives=host)";
        return false;
      }
      bool member = rank == from || rank == to;
      nccl::Comm comm = nullptr;
      // The pair's sender names it and is its index 0; each split is a
      // collective of its own, so the colors of different calls may meet.
      int color = member ? static_cast<int>(from) : nccl::kSplitNoColor;
      std::string what = "ncclCommSplit for pipeline boundary " + std::to_string(b) +
                         (flow == Flow::Activations ? " (activations)" : " (gradients)");
      if (!check(nccl_.api().CommSplit(world_, color, rank == from ? 0 : 1, &comm, nullptr),
                 world_, what, error))
        return false;
      if (!member)
        continue;
      Link link{comm, rank == from ? 1 : 0, nullptr};
      members_[comm] = {from, to};
      links_[{b, flow}] = link; // closed with the others if what follows fails
      if (rank != from || !gpu)
        continue;
      // The budget was checked above; a stream that cannot be made is a
      // failure of this rank alone: abort, so the others' waits end.
      if (!(link.sideStream = gpu->sideStream(sideStreams++, error))) {
        error = what + ": " + error;
        failed_ = true;
        return false;
      }
      links_[{b, flow}] = link;
    }
  return true;
}

bool DeviceCollectives::openGroups(const std::vector<std::vector<int64_t>> &groups,
                                   std::string &error) {
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::vector<int64_t> &group = groups[i];
    int64_t self = -1;
    for (size_t k = 0; k < group.size(); ++k)
      if (group[k] == rank_)
        self = static_cast<int64_t>(k);
    nccl::Comm comm = nullptr;
    // The group's first rank names it; the rank's place in it orders it.
    int color = self >= 0 ? static_cast<int>(group.front()) : nccl::kSplitNoColor;
    if (!check(nccl_.api().CommSplit(world_, color, static_cast<int>(std::max<int64_t>(self, 0)),
                                     &comm, nullptr),
               world_, "ncclCommSplit for the group of ranks " + std::to_string(i), error))
      return false;
    if (self < 0)
      continue;
    if (byGroup_.count(group)) {
      // Opened already: the same ranks under another entry.
      nccl_.api().CommDestroy(comm);
      continue;
    }
    byGroup_[group] = comm;
    members_[comm] = group;
  }
  return true;
}

bool DeviceCollectives::allReduceOver(const std::vector<int64_t> &group, void *data,
                                      int64_t count, ElementType type, ReduceOp op, void *stream,
                                      const std::string &what, std::string &error) {
  if (!usable(what, error))
    return false;
  auto it = byGroup_.find(group);
  if (it == byGroup_.end()) {
    error = what + ": no NCCL communicator for this group of ranks";
    return false;
  }
  return check(nccl_.api().AllReduce(data, data, static_cast<size_t>(count), ncclType(type),
                                     op == ReduceOp::Sum ? nccl::Sum : nccl::Max, it->second,
                                     stream),
               it->second, what, error);
}

const DeviceCollectives::Link *DeviceCollectives::linkOf(int64_t boundary, Flow flow,
                                                         const std::string &what,
                                                         std::string &error) {
  auto it = links_.find({boundary, flow});
  if (it == links_.end()) {
    error = what + ": this rank holds no side of pipeline boundary " + std::to_string(boundary);
    return nullptr;
  }
  return &it->second;
}

bool DeviceCollectives::send(int64_t boundary, Flow flow, const void *data, int64_t count,
                             ElementType type, CudaBackend *gpu, const std::string &what,
                             std::string &error) {
  const Link *link = usable(what, error) ? linkOf(boundary, flow, what, error) : nullptr;
  if (!link)
    return false;
  size_t bytes = static_cast<size_t>(count * elementBytes(type));
  unsigned char *copy = nullptr;
  if (gpu) {
    copy = static_cast<unsigned char *>(gpu->allocate(bytes, error));
    if (!copy) {
      error = what + ": no GPU memory for the message's copy: " + error;
      return false;
    }
    sent_.push_back(Sent{copy, link->sideStream});
  } else {
    hostCopies_.emplace_back(bytes);
    copy = hostCopies_.back().data();
  }
  // The compiled function that wrote `data` has finished (the runner waits
  // for the GPU after each call), and the next may overwrite it.
  std::memcpy(copy, data, bytes);
  return check(nccl_.api().Send(copy, static_cast<size_t>(count), ncclType(type), link->peer,
                                link->comm, link->sideStream),
               link->comm, what, error);
}

bool DeviceCollectives::recv(int64_t boundary, Flow flow, void *data, int64_t count,
                             ElementType type, CudaBackend *gpu, const std::string &what,
                             std::string &error) {
  const Link *link = usable(what, error) ? linkOf(boundary, flow, what, error) : nullptr;
  if (!link)
    return false;
  bool ok = check(nccl_.api().Recv(data, static_cast<size_t>(count), ncclType(type), link->peer,
                                   link->comm, gpu ? gpu->stream() : nullptr),
                  link->comm, what, error);
  // The host reads a received activation next (a stage's kept input).
  return ok && (!gpu || gpu->synchronize(error));
}

bool DeviceCollectives::flush(CudaBackend *gpu, std::string &error) {
  bool ok = true;
  std::vector<void *> waited;
  for (const Sent &s : sent_) {
    if (std::find(waited.begin(), waited.end(), s.stream) == waited.end()) {
      waited.push_back(s.stream);
      ok = gpu->synchronizeStream(s.stream, error) && ok;
    }
  }
  // A copy a failed send may still read stays allocated (the communicators
  // are aborted first, at the end of the run).
  if (ok)
    for (const Sent &s : sent_)
      gpu->release(s.copy);
  sent_.clear();
  hostCopies_.clear();
  return ok;
}

void DeviceCollectives::watch(double timeoutSeconds, int64_t rank, CudaBackend *gpu) {
  std::vector<std::pair<nccl::Comm, std::string>> comms;
  for (const auto &[comm, ranks] : members_) {
    nccl::Comm c = comm ? comm : world_;
    if (!c)
      continue;
    std::string what = "the communicator of ranks";
    for (size_t i = 0; i < ranks.size(); ++i)
      what += (i ? ", " : " ") + std::to_string(ranks[i]);
    comms.push_back({c, what});
  }
  NcclWatchdog::Settings settings;
  settings.timeoutSeconds = timeoutSeconds;
  settings.rank = rank;
  std::function<double()> waitingSince;
  if (gpu)
    waitingSince = [gpu] { return gpu->waitingSince(); };
  watchdog_ = std::make_unique<NcclWatchdog>(nccl_, std::move(comms), waitingSince, settings);
}

bool DeviceCollectives::usable(const std::string &what, std::string &error) const {
  if (!watchdog_ || !watchdog_->tripped())
    return true;
  error = what + ": " + watchdog_->reason();
  return false;
}

DeviceCollectives::~DeviceCollectives() {
  if (watchdog_)
    watchdog_->stop();
  bool aborted = watchdog_ && watchdog_->tripped();
  watchdog_.reset();
  if (aborted)
    return; // NCCL freed the communicators it aborted
  // After a failure, work still queued may wait forever on a peer that is
  // gone; ncclCommDestroy would wait with it, ncclCommAbort does not.
  auto close = failed_ ? nccl_.api().CommAbort : nccl_.api().CommDestroy;
  for (auto &[key, link] : links_)
    if (link.comm)
      close(link.comm);
  for (auto &[group, comm] : byGroup_)
    close(comm);
  for (auto &[mask, comm] : byMask_)
    if (comm)
      close(comm);
  if (world_)
    close(world_);
  if (scratch_)
    retiredScratch_.push_back(scratch_);
  for (unsigned char *old : retiredScratch_)
    scratchGpu_->release(old);
}

unsigned char *DeviceCollectives::scratch(size_t bytes, CudaBackend *gpu, std::string &error) {
  if (!gpu) { // an emulated plan: host memory
    if (hostScratch_.size() < bytes)
      hostScratch_.resize(bytes);
    return hostScratch_.data();
  }
  if (scratch_ && scratchBytes_ >= bytes)
    return scratch_;
  // Work queued on any of the rank's streams may still use the smaller one:
  // it is freed with the communicators (it grows a few times at most).
  if (scratch_)
    retiredScratch_.push_back(scratch_);
  scratch_ = static_cast<unsigned char *>(gpu->allocate(bytes, error));
  if (!scratch_) {
    error = "no buffer of " + std::to_string(bytes) + " bytes on the GPU to regroup a "
            "collective's pieces in: " + error;
    return nullptr;
  }
  scratchBytes_ = bytes;
  scratchGpu_ = gpu;
  return scratch_;
}

bool DeviceCollectives::check(nccl::Result result, nccl::Comm comm, const std::string &what,
                              std::string &error) {
  if (result == nccl::Success)
    return true;
  failed_ = true;
  if (!error.empty())
    return false;
  error = what + ": NCCL failed: " + nccl_.describe(result, comm);
  if (watchdog_ && watchdog_->tripped())
    error += " (" + watchdog_->reason() + ")";
  // NCCL names ranks by their index in the communicator: which ranks those are.
  auto it = members_.find(comm == world_ ? nullptr : comm);
  if (it != members_.end() && it->second.size() > 1) {
    error += " (a communicator of ranks ";
    for (size_t i = 0; i < it->second.size(); ++i)
      error += (i ? ", " : "") + std::to_string(it->second[i]);
    error += ", in its order)";
  }
  return false;
}

nccl::Comm DeviceCollectives::commOf(int64_t mask, const std::string &what, std::string &error) {
  if (!usable(what, error))
    return nullptr;
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

bool DeviceCollectives::reduce(const void *in, void *out, int64_t count, ElementType type,
                               int64_t root, int64_t mask, void *stream, const std::string &what,
                               std::string &error) {
  nccl::Comm comm = commOf(mask, what, error);
  return comm && check(nccl_.api().Reduce(in, out, static_cast<size_t>(count), ncclType(type),
                                          nccl::Sum, static_cast<int>(root), comm, stream),
                       comm, what, error);
}

bool copyOnStream(CudaBackend *gpu, void *dst, const void *src, size_t bytes, std::string &error) {
  if (gpu)
    return bytes == 0 || gpu->copy2d(nullptr, dst, bytes, src, bytes, bytes, 1, error);
  std::memmove(dst, src, bytes);
  return true;
}

void zeroOnStream(CudaBackend *gpu, void *data, size_t bytes) {
  if (bytes == 0)
    return;
  if (gpu)
    gpu->zero(data, bytes);
  else
    std::memset(data, 0, bytes);
}

} // namespace mt
