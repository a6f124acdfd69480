//===- CollectiveQueue.h - collectives in flight beside compiled code -*- C++ -*-===//
//
// The collectives a compiled step starts and waits for later
// (mt.collective_wait) run here, on a thread of the rank's own, one after
// another in the order they were started: every rank's program starts them
// in the same order, so the messages between two ranks keep one order too.
// Each is known by the buffer it fills, which its wait names.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_COLLECTIVEQUEUE_H
#define MT_RUNTIME_COMM_COLLECTIVEQUEUE_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mt {

/// Whether collectives a function starts ahead of their waits move to a
/// CollectiveQueue or run whole where they start.
enum class CollectiveOverlap {
  Off,
  On,
  Auto, // on where the transport is MPI: rank threads share one machine's cores
};

class CollectiveQueue {
public:
  /// Runs a collective; false with the error when it failed.
  using Work = std::function<bool(std::string &error)>;

  CollectiveQueue() = default;
  CollectiveQueue(const CollectiveQueue &) = delete;
  CollectiveQueue &operator=(const CollectiveQueue &) = delete;
  /// Finishes what was started (a collective left half done would leave
  /// the peers' messages out of step).
  ~CollectiveQueue();

  /// Queues `work`, which fills `out`, behind what was started before.
  void start(const void *out, Work work);
  /// Returns once the collective filling `out` (and every one started
  /// before it) is done; true at once when none is pending for `out`.
  /// False with the first failure.
  bool wait(const void *out, std::string &error);
  /// Waits for everything started.
  bool drain(std::string &error);
  bool idle();

private:
  bool waitFor(uint64_t ticket, std::string &error);
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, Work>> queued_;
  std::map<const void *, uint64_t> ticketOf_; // pending collectives by the buffer they fill
  uint64_t issued_ = 0, finished_ = 0;
  bool stopping_ = false;
  std::string error_;
  std::thread worker_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_COLLECTIVEQUEUE_H
