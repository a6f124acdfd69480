//===- CollectiveQueue.cpp - collectives in flight beside compiled code ---===//
#include "mt/Runtime/Comm/CollectiveQueue.h"

namespace mt {

CollectiveQueue::~CollectiveQueue() {
  std::string ignored;
  drain(ignored);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable())
    worker_.join();
}

void CollectiveQueue::start(const void *out, Work work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t ticket = ++issued_;
    queued_.emplace_back(ticket, std::move(work));
    ticketOf_[out] = ticket;
    if (!worker_.joinable())
      worker_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
}

void CollectiveQueue::run() {
  for (;;) {
    std::pair<uint64_t, Work> next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
      if (queued_.empty())
        return;
      next = std::move(queued_.front());
      queued_.pop_front();
    }
    std::string error;
    // After a failure the rest are skipped: their peers have stopped too.
    bool ok = error_.empty() && next.second(error);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!ok && error_.empty())
        error_ = error.empty() ? "a collective started before failed" : error;
      finished_ = next.first;
    }
    changed_.notify_all();
  }
}

bool CollectiveQueue::waitFor(uint64_t ticket, std::string &error) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_ >= ticket; });
  if (!error_.empty()) {
    error = error_;
    return false;
  }
  return true;
}

bool CollectiveQueue::wait(const void *out, std::string &error) {
  uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ticketOf_.find(out);
    if (it == ticketOf_.end())
      return error_.empty() || (error = error_, false);
    ticket = it->second;
    ticketOf_.erase(it);
  }
  return waitFor(ticket, error);
}

bool CollectiveQueue::drain(std::string &error) {
  uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ticket = issued_;
    ticketOf_.clear();
  }
  return waitFor(ticket, error);
}

bool CollectiveQueue::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ == issued_;
}

} // namespace mt
