//===- ThreadTransport.cpp - ranks as threads of one process ---------------===//
#include "mt/Runtime/Comm/ThreadTransport.h"

#include <chrono>
#include <cstring>

namespace mt {

bool ThreadTransport::send(int dst, int tag, const void *data, size_t bytes, std::string &error) {
  if (dst < 0 || dst >= world_.size_) {
    error = "send to rank " + std::to_string(dst) + " outside a world of " +
            std::to_string(world_.size_);
    return false;
  }
  std::vector<char> copy(bytes);
  if (bytes)
    std::memcpy(copy.data(), data, bytes);
  {
    std::lock_guard<std::mutex> lock(world_.mutex_);
    world_.boxes_[{rank_, dst, tag}].push_back(std::move(copy));
  }
  world_.changed_.notify_all();
  return true;
}

Transport::RecvStatus ThreadTransport::recv(int src, int tag, std::vector<char> &message,
                                            double timeoutSeconds, std::string &error) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(timeoutSeconds));
  std::unique_lock<std::mutex> lock(world_.mutex_);
  auto &box = world_.boxes_[{src, rank_, tag}];
  for (;;) {
    // Messages a peer sent before it failed are still delivered.
    if (!box.empty()) {
      message = std::move(box.front());
      box.pop_front();
      return RecvStatus::Ok;
    }
    if (!world_.failures_[src].empty()) {
      error = world_.failures_[src];
      return RecvStatus::PeerFailed;
    }
    if (world_.changed_.wait_until(lock, deadline) == std::cv_status::timeout && box.empty() &&
        world_.failures_[src].empty())
      return RecvStatus::TimedOut;
  }
}

void ThreadTransport::fail(const std::string &why) {
  {
    std::lock_guard<std::mutex> lock(world_.mutex_);
    world_.failures_[rank_] = why.empty() ? "failed" : why;
  }
  world_.changed_.notify_all();
}

} // namespace mt
