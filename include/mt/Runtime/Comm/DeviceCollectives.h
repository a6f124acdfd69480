//===- DeviceCollectives.h - a rank's collectives as NCCL calls -*- C++ -*-===//
//
// With `mt-run --collectives=nccl`, the collectives compiled code calls run
// as NCCL calls on the rank's stream, in the stream's order, instead of
// waiting for the device and moving the buffers through host memory. This
// holds the rank's communicators: the world's, made from an id rank 0 sends
// over the host transport, and one split from it per combination of mesh
// axes, made in the same order on every rank (docs/nccl-design.md).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_DEVICECOLLECTIVES_H
#define MT_RUNTIME_COMM_DEVICECOLLECTIVES_H

#include "mt/Runtime/Code/CudaBackend.h"
#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/NcclLibrary.h"
#include "mt/Runtime/Comm/NcclWatchdog.h"
#include "mt/Sharding/MeshShape.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class DeviceCollectives {
public:
  /// The side stream the data-parallel sums beside the backward take
  /// (DeviceOverlappedReduction); the pipeline's sends take those below
  /// kStartedStream.
  static constexpr int kReductionStream = CudaBackend::kSideStreams - 1;
  /// The side stream tensor parallelism's collectives started ahead of
  /// their wait take (mt-overlap-collectives).
  static constexpr int kStartedStream = CudaBackend::kSideStreams - 2;

  /// The rank's communicators; collective over the mesh's ranks, whose
  /// messages `host` carries (null on a one-rank run). False with `error`
  /// naming NCCL's failure.
  static std::unique_ptr<DeviceCollectives> open(const NcclLibrary &nccl, Communicator *host,
                                                 const MeshShape &mesh, int64_t rank,
                                                 std::string &error);
  ~DeviceCollectives();

  const NcclLibrary &library() const { return nccl_; }

  /// In place, over the group of mesh axes `mask` (mt/Runtime/Abi.h).
  bool allReduce(void *data, int64_t count, ElementType type, ReduceOp op, int64_t mask,
                 void *stream, const std::string &what, std::string &error);
  /// `out` receives the members' `in` (count elements each) in group order.
  bool allGather(const void *in, void *out, int64_t count, ElementType type, int64_t mask,
                 void *stream, const std::string &what, std::string &error);
  /// `in` holds a piece of `count` elements per member; this member receives
  /// the sum of everyone's piece for it.
  /// Sums the members' `in` (count elements each) into member `root`'s
  /// `out` (the group's index; `out` is not read elsewhere).
  bool reduce(const void *in, void *out, int64_t count, ElementType type, int64_t root,
              int64_t mask, void *stream, const std::string &what, std::string &error);
  bool reduceScatter(const void *in, void *out, int64_t count, ElementType type, int64_t mask,
                     void *stream, const std::string &what, std::string &error);

  /// Communicators over groups of ranks no set of mesh axes names (the
  /// stages holding a tied parameter): one ncclCommSplit per entry, the
  /// same number in the same order on every rank; entry i is this rank's
  /// group (empty: it is in none). Collective over the world.
  bool openGroups(const std::vector<std::vector<int64_t>> &groups, std::string &error);
  /// In place, over `group`, one openGroups opened.
  bool allReduceOver(const std::vector<int64_t> &group, void *data, int64_t count,
                     ElementType type, ReduceOp op, void *stream, const std::string &what,
                     std::string &error);

  /// Starts the watchdog (NcclWatchdog) over every communicator opened so
  /// far: on NCCL's asynchronous error, or a wait on `gpu` (if any) longer
  /// than `timeoutSeconds`, it aborts them, and the next call here fails
  /// with the reason.
  void watch(double timeoutSeconds, int64_t rank, CudaBackend *gpu);

  /// Which way a pipeline message goes across boundary b: activations from
  /// stage b to b + 1, gradients back.
  enum class Flow { Activations, Gradients };

  /// The pipeline's communicators: two per boundary between virtual stages
  /// b and b + 1 (one per flow), of the two ranks holding them (this rank's
  /// data- and tensor-parallel peers), so that each one's messages go one
  /// way, in micro-batch order on both sides (NCCL has no tags).
  /// `stageRank(k)`: the rank holding stage k. Collective over the world.
  bool openPipeline(int64_t numStages, int64_t worldSize, int64_t rank,
                    const std::function<int64_t(int64_t)> &stageRank, CudaBackend *gpu,
                    std::string &error);
  /// Sends a copy of `data` across `boundary` on the communicator's own
  /// side stream, and goes on: a send waits for its receive without
  /// holding up this rank's kernels or its other sends, as the host
  /// transport's buffered sends do, so no schedule (1F1B, interleaved) can
  /// wait on itself. The copy is freed by flush().
  bool send(int64_t boundary, Flow flow, const void *data, int64_t count, ElementType type,
            CudaBackend *gpu, const std::string &what, std::string &error);
  /// Receives across `boundary` on the rank's stream; `data` holds the
  /// message on return.
  bool recv(int64_t boundary, Flow flow, void *data, int64_t count, ElementType type,
            CudaBackend *gpu, const std::string &what, std::string &error);
  /// Waits for the sends under way, and frees their copies.
  bool flush(CudaBackend *gpu, std::string &error);

  /// At least `bytes` of `gpu`'s memory (host memory without one) for a
  /// collective's pieces, kept between calls: its users queue in one order
  /// (a collective on the started collectives' stream is joined before any
  /// other runs). Outgrown ones are freed at the end. Null with `error`.
  unsigned char *scratch(size_t bytes, CudaBackend *gpu, std::string &error);

private:
  struct Link {
    nccl::Comm comm = nullptr;
    int peer = 0;             // the other rank's index in it
    void *sideStream = nullptr; // where this rank's sends on it queue
  };
  struct Sent {
    unsigned char *copy;
    void *stream;
  };
  explicit DeviceCollectives(const NcclLibrary &nccl) : nccl_(nccl) {}
  const Link *linkOf(int64_t boundary, Flow flow, const std::string &what, std::string &error);
  bool check(nccl::Result result, nccl::Comm comm, const std::string &what, std::string &error);
  /// False with the watchdog's reason once it aborted the communicators.
  bool usable(const std::string &what, std::string &error) const;
  nccl::Comm commOf(int64_t mask, const std::string &what, std::string &error);

  const NcclLibrary &nccl_;
  nccl::Comm world_ = nullptr;
  int64_t rank_ = 0; // in the world
  std::map<int64_t, nccl::Comm> byMask_;
  std::map<std::pair<int64_t, Flow>, Link> links_;
  std::map<std::vector<int64_t>, nccl::Comm> byGroup_;
  // The world ranks of each communicator, by index (the world's under null).
  std::map<nccl::Comm, std::vector<int64_t>> members_;
  bool failed_ = false; // a call failed: the communicators are aborted, not waited for
  std::vector<Sent> sent_;
  std::unique_ptr<NcclWatchdog> watchdog_;
  std::vector<std::vector<unsigned char>> hostCopies_; // the copies without a GPU
  std::vector<unsigned char> hostScratch_; // scratch() without a GPU
  unsigned char *scratch_ = nullptr;
  std::vector<unsigned char *> retiredScratch_; // outgrown, freed at the end
  size_t scratchBytes_ = 0;
  CudaBackend *scratchGpu_ = nullptr;
};

/// `bytes` from `src` to `dst` queued on `gpu`'s calling thread's stream,
/// or at once without a GPU (an emulated plan). False with `error`.
bool copyOnStream(CudaBackend *gpu, void *dst, const void *src, size_t bytes, std::string &error);
/// `bytes` at `data` zeroed likewise.
void zeroOnStream(CudaBackend *gpu, void *data, size_t bytes);

} // namespace mt

#endif
