//===- NcclWatchdog.cpp - a rank's NCCL communicators, watched ------------===//
#include "mt/Runtime/Comm/NcclWatchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace mt {

double NcclWatchdog::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

NcclWatchdog::NcclWatchdog(const NcclLibrary &nccl,
                           std::vector<std::pair<nccl::Comm, std::string>> comms,
                           std::function<double()> waitingSince, Settings settings)
    : nccl_(nccl), comms_(std::move(comms)), waitingSince_(std::move(waitingSince)),
      settings_(settings) {
  thread_ = std::thread([this] { run(); });
}

NcclWatchdog::~NcclWatchdog() { stop(); }

void NcclWatchdog::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

std::string NcclWatchdog::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

void NcclWatchdog::run() {
  auto poll = std::chrono::duration<double>(settings_.pollSeconds);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, poll, [&] { return stopping_; })) {
    std::string why;
    for (const auto &[comm, what] : comms_) {
      nccl::Result error = nccl::Success;
      if (nccl_.api().CommGetAsyncError(comm, &error) == nccl::Success &&
          error != nccl::Success && error != nccl::InProgress) {
        why = "NCCL reported an error on " + what + ": " + nccl_.describe(error, comm);
        break;
      }
    }
    double since = waitingSince_ ? waitingSince_() : 0;
    if (why.empty() && since > 0 && now() - since > settings_.timeoutSeconds)
      why = "waited " + std::to_string(static_cast<int64_t>(now() - since)) +
            " s on its GPU for NCCL's work (more than --comm-timeout): a peer died, hangs, or "
            "runs a different program";
    if (why.empty())
      continue;
    // Decided under the lock: once stop() holds it, no trip begins, and
    // what tripped() says after stop() is final.
    reason_ = "rank " + std::to_string(settings_.rank) + ": " + why;
    tripped_ = true;
    lock.unlock();
    abortAll();
    lock.lock();
    // The rank should now fail and stop the watchdog; a rank stuck where an
    // abort does not reach must not hang its job.
    auto grace = std::chrono::duration<double>(settings_.graceSeconds);
    if (!stop_.wait_for(lock, grace, [&] { return stopping_; })) {
      std::fprintf(stderr, "mt-run: rank %lld: %s; its NCCL communicators were aborted, and it "
                           "did not stop within %.0f s: exiting\n",
                   static_cast<long long>(settings_.rank), reason_.c_str(),
                   settings_.graceSeconds);
      std::fflush(stderr);
      _exit(1);
    }
    return;
  }
}

void NcclWatchdog::abortAll() {
  // Ends the communicators' kernels, so the rank's wait on its GPU returns.
  for (const auto &[comm, what] : comms_)
    nccl_.api().CommAbort(comm);
}

} // namespace mt
