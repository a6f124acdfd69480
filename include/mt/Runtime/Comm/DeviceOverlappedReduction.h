//===- DeviceOverlappedReduction.h - gradient sums on a comm stream -*- C++ -*-===//
//
// With NCCL, the data-parallel all-reduce of each gradient slice starts
// where the compiled step signals it final (mt.gradient_ready): the host
// code signals right after queueing the kernel that finishes the slice, so
// the reduction stream waits for the compute stream's work so far (an
// event) and then queues the all-reduce, which runs beside the rest of the
// backward. finish() waits for the reduction stream before the optimizer
// reads the sums. Slices go in signal order, the same on every rank. Without
// a GPU (an emulated plan and the stand-in NCCL) the signal comes after the
// slice's values are computed and the call runs at once. With the
// distributed optimizer a slice is summed into the members' shards instead:
// one ncclReduce per member whose shard the slice touches, rooted there
// (the slice's part in that shard, in place), so the data moved is what a
// reduce-scatter would move, whatever the slice's bounds.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_DEVICEOVERLAPPEDREDUCTION_H
#define MT_RUNTIME_COMM_DEVICEOVERLAPPEDREDUCTION_H

#include "mt/Runtime/Comm/DeviceCollectives.h"
#include "mt/Runtime/Comm/GradientSink.h"
#include "mt/Runtime/Comm/OverlappedReduction.h"

#include <string>
#include <vector>

namespace mt {

class DeviceOverlappedReduction : public GradientSink {
public:
  /// All-reduced in place, or with `shard` set reduced into the shards.
  using Slice = OverlappedReduction::Slice;
  /// Sums over the mesh axes `mask` (the data-parallel group), of `members`
  /// ranks; this rank is member `me` (the NCCL rank in the group).
  DeviceOverlappedReduction(DeviceCollectives &nccl, CudaBackend *gpu, int64_t mask,
                            int64_t members, int64_t me)
      : nccl_(nccl), gpu_(gpu), mask_(mask), members_(members), me_(me) {}

  /// The slices one call makes final; `bySignal[i]`: signal i's slice, or -1.
  void start(std::vector<Slice> slices, std::vector<int64_t> bySignal);
  void ready(int64_t index) override;
  /// Waits for the reductions queued; `waited` is how long. False with the
  /// first failure, or when a slice was never signalled.
  bool finish(double &waited, std::string &error);
  bool active() const { return active_; }

private:
  DeviceCollectives &nccl_;
  CudaBackend *gpu_;
  int64_t mask_, members_, me_;
  void *stream_ = nullptr; // the reduction stream (null without a GPU)
  std::vector<Slice> slices_;
  std::vector<int64_t> bySignal_;
  std::vector<bool> done_;
  size_t batchStart_ = 0;
  bool active_ = false;
  std::string error_;
};

} // namespace mt

#endif
