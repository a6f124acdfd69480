//===- Communicator.cpp - collectives over ordered messages ----------------===//
#include "mt/Runtime/Comm/Communicator.h"

#include <algorithm>
#include <cstring>

namespace mt {

namespace {

constexpr int kCollectiveTag = 0;
constexpr int kFirstChannelTag = 1;
constexpr size_t kLabelBytes = 96;

struct Header {
  uint32_t kind, type, op, reserved;
  int64_t count;
  char label[kLabelBytes];
};

const char *kindName(uint32_t kind) {
  switch (kind) {
  case 1:
    return "all_reduce";
  case 2:
    return "all_gather";
  case 3:
    return "reduce_scatter";
  case 4:
    return "send/recv";
  default:
    return "an unknown operation";
  }
}

std::string groupText(const Group &group) {
  std::string s = group.name + " group [";
  for (size_t i = 0; i < group.ranks.size(); ++i)
    s += (i ? ", " : "") + std::to_string(group.ranks[i]);
  return s + "]";
}

} // namespace


int64_t Communicator::indexIn(const Group &group, const std::string &what,
                              std::string &error) const {
  auto it = std::find(group.ranks.begin(), group.ranks.end(), rank());
  if (it == group.ranks.end()) {
    error = "rank " + std::to_string(rank()) + " is not a member of the " + groupText(group) +
            " it uses for '" + what + "'";
    return -1;
  }
  for (int64_t r : group.ranks)
    if (r < 0 || r >= size()) {
      error = "the " + groupText(group) + " of '" + what + "' names rank " + std::to_string(r) +
              " outside a world of " + std::to_string(size());
      return -1;
    }
  return it - group.ranks.begin();
}

bool Communicator::post(int64_t peer, int tag, Kind kind, const void *data, int64_t count,
                        ElementType type, ReduceOp op, const std::string &what,
                        std::string &error) {
  size_t payload = static_cast<size_t>(count * elementBytes(type));
  std::vector<char> message(sizeof(Header) + payload);
  Header h{};
  h.kind = static_cast<uint32_t>(kind);
  h.type = static_cast<uint32_t>(type);
  h.op = static_cast<uint32_t>(op);
  h.count = count;
  std::strncpy(h.label, what.c_str(), kLabelBytes - 1);
  std::memcpy(message.data(), &h, sizeof h);
  if (payload)
    std::memcpy(message.data() + sizeof h, data, payload);
  return transport_.send(static_cast<int>(peer), tag, message.data(), message.size(), error);
}

bool Communicator::take(int64_t peer, int tag, Kind kind, void *data, int64_t count,
                        ElementType type, ReduceOp op, const std::string &what,
                        const std::string &where, std::string &error) {
  std::vector<char> message;
  std::string peerError;
  std::string me = "rank " + std::to_string(rank());
  std::string doing =
      std::string(kindName(static_cast<uint32_t>(kind))) + " '" + what + "'" + where;
  switch (transport_.recv(static_cast<int>(peer), tag, message, timeout_, peerError)) {
  case Transport::RecvStatus::TimedOut: {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_);
    error = me + " waited " + seconds + " s for rank " + std::to_string(peer) + " in " + doing +
            "; rank " + std::to_string(peer) + " has died, hangs, or runs a different program";
    return false;
  }
  case Transport::RecvStatus::PeerFailed:
    error = me + " stopped in " + doing + " because rank " + std::to_string(peer) +
            " failed: " + peerError;
    return false;
  case Transport::RecvStatus::Ok:
    break;
  }
  Header h{};
  if (message.size() < sizeof h) {
    error = me + " received a malformed message from rank " + std::to_string(peer) + " in " + doing;
    return false;
  }
  std::memcpy(&h, message.data(), sizeof h);
  h.label[kLabelBytes - 1] = 0;
  bool agree = h.kind == static_cast<uint32_t>(kind) && h.type == static_cast<uint32_t>(type) &&
               h.count == count && h.op == static_cast<uint32_t>(op) &&
               message.size() == sizeof h + static_cast<size_t>(count * elementBytes(type));
  if (!agree) {
    error = "mismatched communication: " + me + " is in " + doing + " (" + std::to_string(count) +
            " elements) but rank " + std::to_string(peer) + " is in " + kindName(h.kind) + " '" +
            h.label + "' (" + std::to_string(h.count) + " elements)";
    return false;
  }
  if (count)
    std::memcpy(data, message.data() + sizeof h, static_cast<size_t>(count * elementBytes(type)));
  return true;
}

bool Communicator::allReduce(const Group &group, void *data, int64_t count, ElementType type,
                             ReduceOp op, const std::string &what, std::string &error) {
  int64_t me = indexIn(group, what, error);
  if (me < 0)
    return false;
  std::string where = " over the " + groupText(group);
  for (int64_t peer : group.ranks)
    if (peer != rank() &&
        !post(peer, kCollectiveTag, Kind::AllReduce, data, count, type, op, what, error))
      return false;
  size_t bytes = static_cast<size_t>(count * elementBytes(type));
  std::vector<char> mine(static_cast<const char *>(data), static_cast<const char *>(data) + bytes);
  std::vector<char> piece(bytes), acc(bytes);
  // Combine in group order, the same on every member.
  for (size_t i = 0; i < group.ranks.size(); ++i) {
    const char *src = mine.data();
    if (group.ranks[i] != rank()) {
      if (!take(group.ranks[i], kCollectiveTag, Kind::AllReduce, piece.data(), count, type, op,
                what, where, error))
        return false;
      src = piece.data();
    }
    if (i == 0)
      std::memcpy(acc.data(), src, bytes);
    else
      combineElements(acc.data(), src, count, type, op);
  }
  if (bytes)
    std::memcpy(data, acc.data(), bytes);
  return true;
}

bool Communicator::allGather(const Group &group, const void *in, void *out, int64_t count,
                             ElementType type, const std::string &what, std::string &error) {
  int64_t me = indexIn(group, what, error);
  if (me < 0)
    return false;
  std::string where = " over the " + groupText(group);
  for (int64_t peer : group.ranks)
    if (peer != rank() &&
        !post(peer, kCollectiveTag, Kind::AllGather, in, count, type, ReduceOp::Sum, what, error))
      return false;
  size_t bytes = static_cast<size_t>(count * elementBytes(type));
  for (size_t i = 0; i < group.ranks.size(); ++i) {
    char *dst = static_cast<char *>(out) + i * bytes;
    if (group.ranks[i] == rank()) {
      if (bytes)
        std::memmove(dst, in, bytes);
    } else if (!take(group.ranks[i], kCollectiveTag, Kind::AllGather, dst, count, type,
                     ReduceOp::Sum, what, where, error)) {
      return false;
    }
  }
  return true;
}

bool Communicator::reduceScatter(const Group &group, const void *in, void *out, int64_t count,
                                 ElementType type, ReduceOp op, const std::string &what,
                                 std::string &error) {
  std::vector<int64_t> counts(group.ranks.size(), count);
  return reduceScatter(group, in, counts, out, type, op, what, error);
}

bool Communicator::reduceScatter(const Group &group, const void *in,
                                 const std::vector<int64_t> &counts, void *out, ElementType type,
                                 ReduceOp op, const std::string &what, std::string &error) {
  int64_t me = indexIn(group, what, error);
  if (me < 0)
    return false;
  if (counts.size() != group.ranks.size()) {
    error = "reduce_scatter '" + what + "' over the " + groupText(group) + " has " +
            std::to_string(counts.size()) + " pieces for " + std::to_string(group.ranks.size()) +
            " members";
    return false;
  }
  std::string where = " over the " + groupText(group);
  size_t width = static_cast<size_t>(elementBytes(type));
  const char *piece = static_cast<const char *>(in);
  const char *own = piece;
  // Every member gets its piece, empty ones included, so that the members
  // stay in step and a disagreement is caught by the headers.
  for (size_t i = 0; i < group.ranks.size(); ++i) {
    if (group.ranks[i] == rank())
      own = piece;
    else if (!post(group.ranks[i], kCollectiveTag, Kind::ReduceScatter, piece, counts[i], type, op,
                   what, error))
      return false;
    piece += static_cast<size_t>(counts[i]) * width;
  }
  int64_t count = counts[static_cast<size_t>(me)];
  size_t bytes = static_cast<size_t>(count) * width;
  std::vector<char> mine(own, own + bytes);
  std::vector<char> received(bytes), acc(bytes);
  for (size_t i = 0; i < group.ranks.size(); ++i) {
    const char *src = mine.data();
    if (group.ranks[i] != rank()) {
      if (!take(group.ranks[i], kCollectiveTag, Kind::ReduceScatter, received.data(), count, type,
                op, what, where, error))
        return false;
      src = received.data();
    }
    // An empty piece has no data to copy (and empty vectors may hand out
    // null, which memcpy must not get even for 0 bytes).
    if (bytes == 0)
      continue;
    if (i == 0)
      std::memcpy(acc.data(), src, bytes);
    else
      combineElements(acc.data(), src, count, type, op);
  }
  if (bytes)
    std::memcpy(out, acc.data(), bytes);
  return true;
}

bool Communicator::send(int64_t peer, int channel, const void *data, int64_t count,
                        ElementType type, const std::string &what, std::string &error) {
  return post(peer, kFirstChannelTag + channel, Kind::PointToPoint, data, count, type,
              ReduceOp::Sum, what, error);
}

bool Communicator::recv(int64_t peer, int channel, void *data, int64_t count, ElementType type,
                        const std::string &what, std::string &error) {
  return take(peer, kFirstChannelTag + channel, Kind::PointToPoint, data, count, type,
              ReduceOp::Sum, what, " from rank " + std::to_string(peer), error);
}

} // namespace mt
