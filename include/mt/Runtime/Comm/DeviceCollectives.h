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
#include "mt/Sharding/MeshShape.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class DeviceCollectives {
public:
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
  bool reduceScatter(const void *in, void *out, int64_t count, ElementType type, int64_t mask,
                     void *stream, const std::string &what, std::string &error);

  /// The pipeline's communicators: one per boundary between virtual stages
  /// b and b + 1, of the two ranks holding them (this rank's data- and
  /// tensor-parallel peers), so that the messages of each boundary match in
  /// order (NCCL has no tags). `stageRank(k)`: the rank holding stage k.
  /// Collective over the world.
  bool openPipeline(int64_t numStages, int64_t worldSize, int64_t rank,
                    const std::function<int64_t(int64_t)> &stageRank, std::string &error);
  /// Queues a copy of `data` for the other rank of `boundary`. NCCL needs a
  /// send and its receive under way together, so the sends go out with
  /// this rank's next receive, or flush(): Megatron's pairing of a stage's
  /// output with its next input.
  bool send(int64_t boundary, const void *data, int64_t count, ElementType type, CudaBackend *gpu,
            const std::string &what, std::string &error);
  /// Receives from the other rank of `boundary`, the queued sends with it;
  /// `data` holds the message on return.
  bool recv(int64_t boundary, void *data, int64_t count, ElementType type, CudaBackend *gpu,
            const std::string &what, std::string &error);
  /// Sends what is queued.
  bool flush(CudaBackend *gpu, std::string &error);

private:
  struct Boundary {
    nccl::Comm comm = nullptr;
    int peer = 0; // the other rank's index in it
  };
  struct Queued {
    int64_t boundary;
    unsigned char *staged;
    int64_t count;
    ElementType type;
    std::string what;
  };
  explicit DeviceCollectives(const NcclLibrary &nccl) : nccl_(nccl) {}
  /// The queued sends and `recv` (if any) as one NCCL group; frees the
  /// copies after.
  bool exchange(const Queued *recv, void *into, CudaBackend *gpu, std::string &error);
  bool check(nccl::Result result, nccl::Comm comm, const std::string &what, std::string &error);
  nccl::Comm commOf(int64_t mask, const std::string &what, std::string &error);

  const NcclLibrary &nccl_;
  nccl::Comm world_ = nullptr;
  std::map<int64_t, nccl::Comm> byMask_;
  std::map<int64_t, Boundary> boundaries_;
  bool failed_ = false; // a call failed: the communicators are aborted, not waited for
  std::vector<Queued> queued_;
  std::vector<std::vector<unsigned char>> hostCopies_; // the copies without a GPU
};

/// Runs `body` on `bytes` of memory NCCL can use and the host can fill: the
/// GPU's (managed) for a CUDA plan, the host's without a GPU (an emulated
/// plan). Freed after the GPU's queued work. False with `error`.
bool withStagingBuffer(CudaBackend *gpu, size_t bytes,
                       const std::function<bool(unsigned char *)> &body, std::string &error);

} // namespace mt

#endif
