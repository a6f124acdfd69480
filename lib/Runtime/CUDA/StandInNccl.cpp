//===- StandInNccl.cpp - NCCL's interface over host threads, for tests ----===//
//
// NCCL refuses two ranks of one communicator on one GPU, and no machine here
// has several, so the NCCL path of CUDA plans is tested against this
// library: the entry points of include/mt/Runtime/Comm/NcclApi.h over the
// threads of one process (here), or over processes of one machine through
// files with $MT_NCCL_STANDIN_DIR set (StandInNcclProcesses.cpp), on
// buffers in host memory (the stand-in CUDA runtime's, or an emulated
// plan's). What it keeps of NCCL's semantics:
//  - every call of a communicator's ranks meets the others' in issue order
//    and fails, on every rank, where they differ (NCCL would hang or
//    corrupt: here it is an error naming both calls);
//  - a send outside a group is eager: its data is copied when the call is
//    made and the caller goes on, as NCCL's send does on a stream nothing
//    else waits on (mt-run gives each pipeline communicator's sends a side
//    stream); a receive blocks until its message is there; inside a group
//    everything is issued at ncclGroupEnd, sends first, and the group ends
//    when all of it is done;
//  - in-place forms (recv at the rank's own piece for all-gather, send at it
//    for reduce-scatter);
//  - ncclCommInitRank and ncclCommSplit are collective;
//  - ncclCommAbort wakes the rank's waits with an error.
// A call runs when it is made (the caller's thread plays the stream).
// Reductions add in rank order with the host transports' arithmetic
// (mt/Runtime/Comm/ElementCombine.h), so results are theirs to the bit.
// A wait longer than $MT_NCCL_STANDIN_TIMEOUT seconds (default 600) fails
// with ncclRemoteError rather than hang a test.
//
//===----------------------------------------------------------------------===//
#include "StandInNccl.h"
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace mt::nccl;
using namespace mt::nccl::standin;


namespace mt::nccl::standin {

struct Message {
  const void *data;
  size_t count;
  DataType type;
  bool taken = false;
  std::vector<unsigned char> copy; // an eager send's data; `data` points here
};

} // namespace mt::nccl::standin

struct mt::nccl::standin::Clique {
  explicit Clique(int size) : size(size), calls(size), members(size, nullptr) {}
  const int size;
  std::mutex mutex;
  std::condition_variable changed;
  // Collectives: the calls of the current round; the last to arrive runs it.
  std::vector<Call> calls;
  int arrived = 0;
  unsigned long long round = 0;
  Result outcome = Success;
  std::string outcomeText;
  // Why a rank left a round unfinished (a timeout, an abort): the round
  // cannot end, so every later call fails at once with this.
  std::string broken;
  // Point to point: messages from one rank to another, in order.
  std::map<std::pair<int, int>, std::deque<std::shared_ptr<Message>>> mailboxes;
  // Initialization: the ranks that joined.
  std::vector<CommState *> members;
  int joined = 0;
};

namespace {

/// What the process did, printed at its exit (tests check the NCCL path
/// was taken): communicators made, calls per kind, the streams collectives
/// were queued on.
struct Tally {
  std::atomic<long> comms{0}, allReduces{0}, allGathers{0}, reduceScatters{0}, sends{0},
      reduces{0};
  std::mutex mutex;
  std::set<Stream> streams;
  ~Tally() {
    if (comms > 0)
      std::fprintf(stderr,
                   "stand-in NCCL: %ld communicator(s), %ld all-reduce(s), %ld all-gather(s), "
                   "%ld reduce-scatter(s), %ld send(s), %ld reduce(s), collectives on %zu "
                   "stream(s)\n",
                   comms.load(), allReduces.load(), allGathers.load(), reduceScatters.load(),
                   sends.load(), reduces.load(), streams.size());
  }
} tally;

std::mutex registryMutex;
std::condition_variable registryChanged;
std::map<std::string, std::shared_ptr<Clique>> pending; // cliques still being joined
thread_local std::string lastErrorWithoutComm;

} // namespace

namespace mt::nccl::standin {

std::chrono::seconds timeout() {
  const char *text = std::getenv("MT_NCCL_STANDIN_TIMEOUT");
  long seconds = text ? std::atol(text) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 600);
}

Result fail(Comm comm, Result result, std::string text) {
  (comm ? comm->lastError : lastErrorWithoutComm) = std::move(text);
  if (comm && result == RemoteError)
    comm->asyncError = result;
  return result;
}

/// Waits on the clique until `done`, the rank's abort or the timeout.
template <typename Done>
Result await(Comm comm, std::unique_lock<std::mutex> &lock, const char *what, Done done) {
  bool finished = comm->clique->changed.wait_for(lock, timeout(), [&] {
    return done() || comm->aborted;
  });
  if (comm->aborted)
    return fail(comm, RemoteError, std::string(what) + " on rank " + std::to_string(comm->rank) +
                                       ": the communicator was aborted");
  if (!finished)
    return fail(comm, RemoteError,
                std::string(what) + " on rank " + std::to_string(comm->rank) + " waited " +
                    std::to_string(timeout().count()) + " s for its peers (stand-in NCCL)");
  return Success;
}



Comm newComm(int rank) {
  ++tally.comms;
  Comm comm = new CommState;
  comm->rank = rank;
  return comm;
}

} // namespace mt::nccl::standin

namespace {

/// Runs a round whose calls are all in: returns the error every rank gets.
std::string runRound(Clique &clique) {
  const Call &first = clique.calls[0];
  for (int r = 1; r < clique.size; ++r) {
    const Call &c = clique.calls[r];
    if (!sameCall(first, c))
      return "mismatched collectives: " + describe(first, 0) + " met " + describe(c, r);
  }
  if (first.kind == Kind::Split) {
    std::map<int, std::vector<std::pair<int, int>>> colors; // color -> (key, rank)
    for (int r = 0; r < clique.size; ++r) {
      *clique.calls[r].split = nullptr;
      if (clique.calls[r].color != kSplitNoColor)
        colors[clique.calls[r].color].push_back({clique.calls[r].key, r});
    }
    for (auto &[color, members] : colors) {
      std::sort(members.begin(), members.end());
      auto split = std::make_shared<Clique>(static_cast<int>(members.size()));
      for (size_t i = 0; i < members.size(); ++i) {
        auto *comm = new CommState;
        comm->clique = split;
        comm->rank = static_cast<int>(i);
        split->members[i] = comm;
        *clique.calls[members[i].second].split = comm;
      }
      split->joined = split->size;
    }
    return "";
  }
  std::optional<mt::ElementType> type = elementType(first.type);
  if (!type)
    return "the stand-in NCCL reduces and gathers float32/64, bfloat16, float16, int32 and int64 "
           "only, not type " +
           std::to_string(static_cast<int>(first.type));
  if (first.kind != Kind::AllGather && first.op != Sum && first.op != Max)
    return "the stand-in NCCL reduces with ncclSum and ncclMax only";
  size_t bytes = first.count * static_cast<size_t>(mt::elementBytes(*type));
  int n = clique.size;
  switch (first.kind) {
  case Kind::Reduce: {
    if (first.root < 0 || first.root >= n)
      return "ncclReduce: root " + std::to_string(first.root) + " is not a rank of " +
             std::to_string(n);
    std::vector<char> sum(static_cast<const char *>(clique.calls[0].send),
                          static_cast<const char *>(clique.calls[0].send) + bytes);
    for (int r = 1; r < n; ++r)
      mt::combineElements(sum.data(), clique.calls[r].send, static_cast<int64_t>(first.count),
                          *type, first.op == Sum ? mt::ReduceOp::Sum : mt::ReduceOp::Max);
    std::memcpy(clique.calls[first.root].recv, sum.data(), bytes);
    return "";
  }
  case Kind::AllReduce:
  case Kind::ReduceScatter: {
    size_t total = first.kind == Kind::AllReduce ? bytes : bytes * n;
    size_t elements = first.kind == Kind::AllReduce ? first.count : first.count * n;
    std::vector<char> sum(static_cast<const char *>(clique.calls[0].send),
                          static_cast<const char *>(clique.calls[0].send) + total);
    mt::ReduceOp op = first.op == Sum ? mt::ReduceOp::Sum : mt::ReduceOp::Max;
    for (int r = 1; r < n; ++r)
      mt::combineElements(sum.data(), clique.calls[r].send, static_cast<int64_t>(elements), *type,
                          op);
    for (int r = 0; r < n; ++r)
      std::memcpy(clique.calls[r].recv, sum.data() + (first.kind == Kind::AllReduce ? 0 : r * bytes),
                  bytes);
    return "";
  }
  case Kind::AllGather: {
    std::vector<char> all(bytes * n);
    for (int r = 0; r < n; ++r)
      std::memcpy(all.data() + r * bytes, clique.calls[r].send, bytes);
    for (int r = 0; r < n; ++r)
      std::memcpy(clique.calls[r].recv, all.data(), all.size());
    return "";
  }
  case Kind::Split:
    break;
  }
  return "";
}

Result collective(Comm comm, Call call, Stream stream = nullptr) {
  if (std::lock_guard<std::mutex> lock(tally.mutex); call.kind != Kind::Split)
    tally.streams.insert(stream);
  (call.kind == Kind::AllReduce       ? tally.allReduces
   : call.kind == Kind::AllGather     ? tally.allGathers
   : call.kind == Kind::ReduceScatter ? tally.reduceScatters
   : call.kind == Kind::Reduce        ? tally.reduces
                                      : tally.comms)++;
  if (!comm)
    return fail(nullptr, InvalidArgument, std::string(kindName(call.kind)) + ": no communicator");
  if (comm->aborted)
    return fail(comm, InvalidUsage, std::string(kindName(call.kind)) + ": communicator aborted");
  if (comm->process)
    return processesCollective(comm, call);
  Clique &clique = *comm->clique;
  std::unique_lock<std::mutex> lock(clique.mutex);
  if (!clique.broken.empty())
    return fail(comm, RemoteError, std::string(kindName(call.kind)) + ": " + clique.broken);
  unsigned long long round = clique.round;
  clique.calls[comm->rank] = call;
  if (++clique.arrived == clique.size) {
    std::string error = runRound(clique);
    clique.outcome = error.empty() ? Success : InvalidUsage;
    clique.outcomeText = error;
    clique.arrived = 0;
    ++clique.round;
    clique.changed.notify_all();
  } else if (Result r = await(comm, lock, kindName(call.kind),
                              [&] { return clique.round != round || !clique.broken.empty(); });
             r != Success || clique.round == round) {
    // Nobody may run this round with this rank's buffers any more.
    if (clique.broken.empty())
      clique.broken = "rank " + std::to_string(comm->rank) + " left a " + kindName(call.kind) +
                      " unfinished: " + comm->lastError;
    clique.changed.notify_all();
    return r != Success ? r : fail(comm, RemoteError, std::string(kindName(call.kind)) + ": " +
                                                          clique.broken);
  }
  // The next round cannot end before this rank joins it: the outcome is this one's.
  if (clique.outcome != Success)
    return fail(comm, clique.outcome, clique.outcomeText);
  return Success;
}

// Point to point, and the group that defers it.
struct Deferred {
  bool isSend;
  const void *send;
  void *recv;
  size_t count;
  DataType type;
  int peer;
  Comm comm;
};
thread_local int groupDepth = 0;
thread_local std::vector<Deferred> deferred;

Result post(const Deferred &d, std::shared_ptr<Message> &posted) {
  Clique &clique = *d.comm->clique;
  std::lock_guard<std::mutex> lock(clique.mutex);
  posted = std::make_shared<Message>(Message{d.send, d.count, d.type});
  clique.mailboxes[{d.comm->rank, d.peer}].push_back(posted);
  clique.changed.notify_all();
  return Success;
}

Result awaitTaken(const Deferred &d, const std::shared_ptr<Message> &posted) {
  Clique &clique = *d.comm->clique;
  std::unique_lock<std::mutex> lock(clique.mutex);
  return await(d.comm, lock, "ncclSend", [&] { return posted->taken; });
}

Result receive(const Deferred &d) {
  Clique &clique = *d.comm->clique;
  std::unique_lock<std::mutex> lock(clique.mutex);
  auto &box = clique.mailboxes[{d.peer, d.comm->rank}];
  if (Result r = await(d.comm, lock, "ncclRecv", [&] { return !box.empty(); }); r != Success)
    return r;
  std::shared_ptr<Message> message = box.front();
  box.pop_front();
  std::optional<mt::ElementType> type = elementType(d.type);
  Result result = Success;
  if (message->count != d.count || message->type != d.type || !type)
    result = fail(d.comm, InvalidUsage,
                  "ncclRecv on rank " + std::to_string(d.comm->rank) + " of " +
                      std::to_string(d.count) + " elements of type " +
                      std::to_string(static_cast<int>(d.type)) + " met ncclSend from rank " +
                      std::to_string(d.peer) + " of " + std::to_string(message->count) +
                      " elements of type " + std::to_string(static_cast<int>(message->type)));
  else
    std::memcpy(d.recv, message->data, d.count * static_cast<size_t>(mt::elementBytes(*type)));
  message->taken = true; // the sender goes on either way
  clique.changed.notify_all();
  return result;
}

Result pointToPoint(const Deferred &d) {
  if (!d.comm)
    return fail(nullptr, InvalidArgument, "ncclSend/ncclRecv: no communicator");
  int size = d.comm->process ? sizeOf(*d.comm->process) : d.comm->clique->size;
  if (d.peer < 0 || d.peer >= size || d.peer == d.comm->rank)
    return fail(d.comm, InvalidArgument,
                "ncclSend/ncclRecv on rank " + std::to_string(d.comm->rank) + ": peer " +
                    std::to_string(d.peer) + " is not another rank of the communicator");
  if (groupDepth > 0) {
    deferred.push_back(d);
    return Success;
  }
  if (d.comm->process)
    return d.isSend ? processesSend(d.comm, d.send, d.count, d.type, d.peer)
                    : processesRecv(d.comm, d.recv, d.count, d.type, d.peer);
  if (!d.isSend)
    return receive(d);
  std::optional<mt::ElementType> type = elementType(d.type);
  if (!type)
    return fail(d.comm, InvalidArgument,
                "ncclSend: unknown data type " + std::to_string(static_cast<int>(d.type)));
  const auto *bytes = static_cast<const unsigned char *>(d.send);
  std::vector<unsigned char> copy(bytes, bytes + d.count * static_cast<size_t>(
                                                     mt::elementBytes(*type)));
  Clique &clique = *d.comm->clique;
  std::lock_guard<std::mutex> lock(clique.mutex);
  if (!clique.broken.empty())
    return fail(d.comm, RemoteError, clique.broken);
  auto posted = std::make_shared<Message>(Message{nullptr, d.count, d.type});
  posted->copy = std::move(copy);
  posted->data = posted->copy.data();
  clique.mailboxes[{d.comm->rank, d.peer}].push_back(posted);
  clique.changed.notify_all();
  return Success;
}

} // namespace

extern "C" {

/// Tells mt-run this is the stand-in, which takes host memory.
int mtNcclStandIn(void) { return 1; }

Result ncclGetVersion(int *version) {
  *version = 22809;
  return Success;
}

Result ncclGetUniqueId(UniqueId *id) {
  if (processesDirectory())
    return makeProcessesId(id);
  static std::mutex mutex;
  static unsigned long long next = 0;
  std::lock_guard<std::mutex> lock(mutex);
  std::memset(id->internal, 0, sizeof id->internal);
  std::snprintf(id->internal, sizeof id->internal, "mt-nccl-standin:%d:%llu",
                static_cast<int>(getpid()), next++);
  return Success;
}

Result ncclCommInitRank(Comm *comm, int ranks, UniqueId id, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return fail(nullptr, InvalidArgument,
                "ncclCommInitRank: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  std::string key(id.internal, strnlen(id.internal, sizeof id.internal));
  if (key.rfind(kProcessesIdPrefix, 0) == 0) {
    Comm joined = newComm(rank);
    if (Result r = joinProcesses(joined, ranks, key.substr(std::strlen(kProcessesIdPrefix)), rank);
        r != Success) {
      lastErrorWithoutComm = joined->lastError;
      delete joined;
      return r;
    }
    *comm = joined;
    return Success;
  }
  int maker = 0;
  if (std::sscanf(key.c_str(), "mt-nccl-standin:%d:", &maker) != 1 || maker != getpid())
    return fail(nullptr, InvalidUsage,
                "ncclCommInitRank: the id was made by another process (" + key +
                    "); the stand-in NCCL joins the rank threads of one process, or with "
                    "MT_NCCL_STANDIN_DIR set the processes of one machine");
  std::unique_lock<std::mutex> lock(registryMutex);
  std::shared_ptr<Clique> &slot = pending[key];
  if (!slot)
    slot = std::make_shared<Clique>(ranks);
  std::shared_ptr<Clique> clique = slot;
  if (clique->size != ranks || clique->members[rank])
    return fail(nullptr, InvalidUsage,
                "ncclCommInitRank: rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                    (clique->size != ranks ? " joins a communicator of " +
                                                 std::to_string(clique->size) + " ranks"
                                           : " joined twice"));
  Comm state = newComm(rank);
  state->clique = clique;
  clique->members[rank] = state;
  if (++clique->joined == ranks) {
    pending.erase(key);
    registryChanged.notify_all();
  } else if (!registryChanged.wait_for(lock, timeout(),
                                       [&] { return clique->joined == clique->size; })) {
    clique->members[rank] = nullptr;
    --clique->joined;
    delete state;
    return fail(nullptr, RemoteError,
                "ncclCommInitRank: rank " + std::to_string(rank) + " waited " +
                    std::to_string(timeout().count()) + " s for the other ranks to join");
  }
  *comm = state;
  return Success;
}

Result ncclCommSplit(Comm comm, int color, int key, Comm *split, Config *) {
  Call call{Kind::Split};
  call.color = color;
  call.key = key;
  call.split = split;
  return collective(comm, call);
}

Result ncclCommDestroy(Comm comm) {
  delete comm;
  return Success;
}

Result ncclCommAbort(Comm comm) {
  if (!comm)
    return Success;
  if (comm->process) {
    comm->aborted = true; // its waits poll
    return Success;
  }
  {
    std::lock_guard<std::mutex> lock(comm->clique->mutex);
    comm->aborted = true;
    comm->clique->changed.notify_all();
  }
  // NCCL frees an aborted communicator; a wait still in it is woken first.
  return Success;
}

Result ncclCommGetAsyncError(Comm comm, Result *error) {
  *error = comm ? comm->asyncError.load() : Success;
  return Success;
}

const char *ncclGetErrorString(Result result) {
  switch (result) {
  case Success:
    return "no error";
  case UnhandledCudaError:
    return "unhandled cuda error";
  case SystemError:
    return "unhandled system error";
  case InternalError:
    return "internal error";
  case InvalidArgument:
    return "invalid argument";
  case InvalidUsage:
    return "invalid usage";
  case RemoteError:
    return "remote process exited or there was a network error";
  case InProgress:
    return "NCCL operation in progress";
  }
  return "unknown result code";
}

const char *ncclGetLastError(Comm comm) {
  return (comm ? comm->lastError : lastErrorWithoutComm).c_str();
}

Result ncclAllReduce(const void *send, void *recv, size_t count, DataType type, RedOp op,
                     Comm comm, Stream stream) {
  Call call{Kind::AllReduce, send, recv, count, type, op};
  return collective(comm, call, stream);
}

Result ncclReduceScatter(const void *send, void *recv, size_t recvCount, DataType type, RedOp op,
                         Comm comm, Stream stream) {
  Call call{Kind::ReduceScatter, send, recv, recvCount, type, op};
  return collective(comm, call, stream);
}

Result ncclReduce(const void *send, void *recv, size_t count, DataType type, RedOp op, int root,
                  Comm comm, Stream stream) {
  Call call{Kind::Reduce, send, recv, count, type, op};
  call.root = root;
  return collective(comm, call, stream);
}

Result ncclAllGather(const void *send, void *recv, size_t sendCount, DataType type, Comm comm,
                     Stream stream) {
  Call call{Kind::AllGather, send, recv, sendCount, type};
  return collective(comm, call, stream);
}

Result ncclSend(const void *send, size_t count, DataType type, int peer, Comm comm, Stream) {
  ++tally.sends;
  return pointToPoint({true, send, nullptr, count, type, peer, comm});
}

Result ncclRecv(void *recv, size_t count, DataType type, int peer, Comm comm, Stream) {
  return pointToPoint({false, nullptr, recv, count, type, peer, comm});
}

Result ncclGroupStart() {
  ++groupDepth;
  return Success;
}

/// The group's sends are posted first, so a pair of ranks exchanging
/// (a pipeline's forward and backward) does not wait on itself.
Result ncclGroupEnd() {
  if (groupDepth == 0)
    return fail(nullptr, InvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth > 0)
    return Success;
  std::vector<Deferred> work;
  work.swap(deferred);
  Result result = Success;
  // Across processes sends are eager, so they go first and nothing waits
  // for them to be taken.
  for (const Deferred &d : work)
    if (d.comm->process && d.isSend && result == Success)
      result = processesSend(d.comm, d.send, d.count, d.type, d.peer);
  for (const Deferred &d : work)
    if (d.comm->process && !d.isSend && result == Success)
      result = processesRecv(d.comm, d.recv, d.count, d.type, d.peer);
  std::vector<std::pair<const Deferred *, std::shared_ptr<Message>>> sends;
  for (const Deferred &d : work)
    if (!d.comm->process && d.isSend) {
      sends.push_back({&d, nullptr});
      post(d, sends.back().second);
    }
  for (const Deferred &d : work)
    if (!d.comm->process && !d.isSend && result == Success)
      result = receive(d);
  for (auto &[d, posted] : sends)
    if (Result r = awaitTaken(*d, posted); r != Success && result == Success)
      result = r;
  return result;
}

} // extern "C"
