//===- NcclWatchdog.h - a rank's NCCL communicators, watched ---*- C++ -*-===//
//
// NCCL's calls only queue work; when a peer dies or hangs, the GPU waits
// for it forever, and so does the host thread synchronizing with the GPU.
// A thread per rank polls each communicator's asynchronous error and how
// long the rank has waited on its GPU; on an error, or past the timeout
// (mt-run --comm-timeout), it aborts the communicators (which ends their
// kernels), so the rank's next call fails with the reason. A rank that
// still has not stopped the watchdog after a grace period (stuck in a call
// an abort does not end) prints the reason and exits, so no rank hangs.
// The abort comes from the watchdog's thread: a call the rank's thread is
// issuing at that moment may meet an aborted communicator (DeviceCollectives
// checks tripped() before each call, which narrows that window).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_NCCLWATCHDOG_H
#define MT_RUNTIME_COMM_NCCLWATCHDOG_H

#include "mt/Runtime/Comm/NcclLibrary.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mt {

class NcclWatchdog {
public:
  struct Settings {
    double timeoutSeconds = 300;
    double graceSeconds = 30;   // after the abort, before exiting
    double pollSeconds = 0.1;
    int64_t rank = 0;           // named in the reasons
  };
  /// `waitingSince()`: when the rank began waiting on its GPU (steady-clock
  /// seconds), 0 when it is not waiting.
  NcclWatchdog(const NcclLibrary &nccl, std::vector<std::pair<nccl::Comm, std::string>> comms,
               std::function<double()> waitingSince, Settings settings);
  ~NcclWatchdog();

  /// Stops the thread (a trip under way finishes first); tripped() is
  /// final after it.
  void stop();
  /// Whether the communicators were aborted, and why.
  bool tripped() const { return tripped_; }
  std::string reason() const;

  /// Steady-clock seconds, as `waitingSince` gives them.
  static double now();

private:
  void run();
  void abortAll();

  const NcclLibrary &nccl_;
  std::vector<std::pair<nccl::Comm, std::string>> comms_; // and what they join
  std::function<double()> waitingSince_;
  Settings settings_;
  std::atomic<bool> tripped_{false};
  mutable std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::string reason_;
  std::thread thread_;
};

} // namespace mt

#endif
