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

private:
  explicit DeviceCollectives(const NcclLibrary &nccl) : nccl_(nccl) {}
  bool check(nccl::Result result, nccl::Comm comm, const std::string &what, std::string &error);
  nccl::Comm commOf(int64_t mask, const std::string &what, std::string &error);

  const NcclLibrary &nccl_;
  nccl::Comm world_ = nullptr;
  std::map<int64_t, nccl::Comm> byMask_;
};

/// Runs `body` on `bytes` of memory NCCL can use and the host can fill: the
/// GPU's (managed) for a CUDA plan, the host's without a GPU (an emulated
/// plan). Freed after the GPU's queued work. False with `error`.
bool withStagingBuffer(CudaBackend *gpu, size_t bytes,
                       const std::function<bool(unsigned char *)> &body, std::string &error);

} // namespace mt

#endif
