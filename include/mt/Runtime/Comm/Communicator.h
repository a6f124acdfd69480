//===- Communicator.h - collectives and pipeline messages ------*- C++ -*-===//
//
// Collectives built on a Transport's ordered messages. Every member sends
// its data to the others and combines what it receives in group order, so
// each member computes the same result bit for bit, on every backend.
// Every message carries a header (operation, element count and type, the
// caller's label), so two ranks that disagree about what comes next fail
// with both labels named instead of exchanging garbage; a peer that never
// answers is reported, with the operation and the peer, after the timeout.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_COMMUNICATOR_H
#define MT_RUNTIME_COMM_COMMUNICATOR_H

#include "mt/Runtime/Comm/ElementCombine.h"
#include "mt/Runtime/Comm/Transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {


/// The ranks of one collective, in group order, and what they are ("dp").
struct Group {
  std::vector<int64_t> ranks;
  std::string name;
};

class Communicator {
public:
  Communicator(Transport &transport, double timeoutSeconds)
      : transport_(transport), timeout_(timeoutSeconds) {}

  int rank() const { return transport_.rank(); }
  int size() const { return transport_.size(); }
  Transport &transport() { return transport_; }
  double timeout() const { return timeout_; }

  /// In place: every member ends with the reduction of all members' `data`.
  bool allReduce(const Group &group, void *data, int64_t count, ElementType type, ReduceOp op,
                 const std::string &what, std::string &error);
  /// `out` receives the members' `in` (count elements each) in group order.
  bool allGather(const Group &group, const void *in, void *out, int64_t count, ElementType type,
                 const std::string &what, std::string &error);
  /// `in` holds group-size pieces of `count` elements; member i receives in
  /// `out` the reduction of everyone's piece i.
  bool reduceScatter(const Group &group, const void *in, void *out, int64_t count, ElementType type,
                     ReduceOp op, const std::string &what, std::string &error);
  /// The same with pieces of their own sizes: `in` holds `counts[i]`
  /// elements for member i after one another (a piece may be empty); this
  /// member receives in `out` the reduction of everyone's piece for it.
  bool reduceScatter(const Group &group, const void *in, const std::vector<int64_t> &counts,
                     void *out, ElementType type, ReduceOp op, const std::string &what,
                     std::string &error);
  /// Pipeline messages: `channel` keeps activations and gradients apart.
  bool send(int64_t peer, int channel, const void *data, int64_t count, ElementType type,
            const std::string &what, std::string &error);
  bool recv(int64_t peer, int channel, void *data, int64_t count, ElementType type,
            const std::string &what, std::string &error);

private:
  enum class Kind : uint32_t { AllReduce = 1, AllGather, ReduceScatter, PointToPoint };
  bool post(int64_t peer, int tag, Kind kind, const void *data, int64_t count, ElementType type,
            ReduceOp op, const std::string &what, std::string &error);
  bool take(int64_t peer, int tag, Kind kind, void *data, int64_t count, ElementType type,
            ReduceOp op, const std::string &what, const std::string &where, std::string &error);
  int64_t indexIn(const Group &group, const std::string &what, std::string &error) const;

  Transport &transport_;
  double timeout_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_COMMUNICATOR_H
