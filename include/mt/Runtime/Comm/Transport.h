//===- Transport.h - point-to-point messages between ranks -----*- C++ -*-===//
//
// The one thing a backend must provide: ordered, buffered messages between
// ranks. Collectives (Communicator.h) are built on top, the same way for
// every backend, so threads and MPI processes reduce in the same order and
// give bit-identical results.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_TRANSPORT_H
#define MT_RUNTIME_COMM_TRANSPORT_H

#include <string>
#include <vector>

namespace mt {

class Transport {
public:
  enum class RecvStatus { Ok, TimedOut, PeerFailed };

  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// What this backend is, for logs ("threads", "mpi").
  virtual std::string name() const = 0;
  /// Whether several threads of this rank may send and receive at once
  /// (to different peers or on different tags): the overlapped reductions
  /// and collectives run on threads of their own only then.
  virtual bool concurrent() const = 0;

  /// Queues `bytes` for rank `dst` on `tag` and returns once they are
  /// copied: a send never waits for its receiver. False only when the
  /// backend itself fails.
  virtual bool send(int dst, int tag, const void *data, size_t bytes, std::string &error) = 0;

  /// The next message from `src` on `tag` (messages between a pair on one
  /// tag arrive in the order they were sent). Waits at most
  /// `timeoutSeconds`; PeerFailed when `src` reported a failure, with its
  /// message in `error`.
  virtual RecvStatus recv(int src, int tag, std::vector<char> &message, double timeoutSeconds,
                          std::string &error) = 0;

  /// Tells every peer that this rank has failed, so that they stop waiting
  /// for it instead of running into their timeouts.
  virtual void fail(const std::string &why) = 0;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_TRANSPORT_H
