//===- OverlappedReduction.h - gradient all-reduce beside the backward -*- C++ -*-===//
//
// The data-parallel reduction of a step's gradients, started slice by
// slice as the backward finishes them (mt.gradient_ready signals from the
// compiled step) on a thread of its own, so it runs while the rest of the
// backward does. The slices are reduced in signal order, the order every
// rank's identical program reaches them. A slice is all-reduced, or, with
// the distributed optimizer, reduce-scattered into the members' shards of
// its accumulator (each member gets the part of the slice its shard
// covers). The collectives combine each element in group order as the
// step's own reduction afterwards would: the sums are bit for bit the
// unoverlapped ones.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_OVERLAPPEDREDUCTION_H
#define MT_RUNTIME_COMM_OVERLAPPEDREDUCTION_H

#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/GradientSink.h"

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mt {

class OverlappedReduction : public GradientSink {
public:
  /// `count` elements at `data`, summed over the group: all-reduced in
  /// place, or, when `shard` is set, reduce-scattered into the shards.
  struct Slice {
    void *data = nullptr;
    int64_t count = 0;
    ElementType type = ElementType::F32;
    std::string what; // for messages: the buffer and the range
    /// Distributed optimizer: member i's shard holds elements
    /// [i * shardElements, (i + 1) * shardElements) of the accumulator, the
    /// slice starts at element `offset` of it, and this member's part of
    /// the sum goes to its shard `shard`.
    void *shard = nullptr;
    int64_t offset = 0;
    int64_t shardElements = 0;
  };

  OverlappedReduction(Communicator &comm, Group group) : comm_(comm), group_(std::move(group)) {}
  ~OverlappedReduction() override;

  /// Adds the slices one call of a step makes final, starting the
  /// reduction thread if it is not running (a pipelined rank adds one batch
  /// per chunk, at the chunk's last backward). `bySignal[i]` is the slice
  /// of this batch signal i makes final, or -1 when the signal is not
  /// reduced here; until the next `start`, signals refer to this batch.
  /// Slices are reduced in the order batches came and, within one, in the
  /// order of their signals.
  void start(std::vector<Slice> slices, std::vector<int64_t> bySignal);
  /// From the compute thread: signal `index` was reached.
  void ready(int64_t index) override;
  /// After the step's last call: waits for every slice. `waited` is how
  /// long the caller was held (the communication the backward did not
  /// hide). False with `error` when a reduction failed or a slice was never
  /// signalled.
  bool finish(double &waited, std::string &error);
  bool active() const { return worker_.joinable(); }

private:
  void run();
  bool reduce(const Slice &s, std::string &error);

  Communicator &comm_;
  Group group_;
  std::vector<Slice> slices_;     // grows while the thread runs: read under the lock
  std::vector<int64_t> bySignal_; // the current batch's, offset into slices_
  std::vector<bool> ready_;       // per slice
  bool abandoned_ = false;
  bool closed_ = false; // finish() was called: no more batches
  std::string error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_OVERLAPPEDREDUCTION_H
