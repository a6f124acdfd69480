//===- ThreadTransport.h - ranks as threads of one process -----*- C++ -*-===//
#ifndef MT_RUNTIME_COMM_THREADTRANSPORT_H
#define MT_RUNTIME_COMM_THREADTRANSPORT_H

#include "mt/Runtime/Comm/Transport.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

namespace mt {

/// The mailboxes shared by the rank threads of one process.
class ThreadWorld {
public:
  explicit ThreadWorld(int size) : size_(size), failures_(size) {}
  int size() const { return size_; }

private:
  friend class ThreadTransport;
  int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<char>>> boxes_; // (src, dst, tag)
  std::vector<std::string> failures_;                                        // per rank
};

class ThreadTransport : public Transport {
public:
  ThreadTransport(ThreadWorld &world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  std::string name() const override { return "threads"; }
  bool concurrent() const override { return true; }
  bool send(int dst, int tag, const void *data, size_t bytes, std::string &error) override;
  RecvStatus recv(int src, int tag, std::vector<char> &message, double timeoutSeconds,
                  std::string &error) override;
  void fail(const std::string &why) override;

private:
  ThreadWorld &world_;
  int rank_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_THREADTRANSPORT_H
