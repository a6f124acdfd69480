//===- StandInNcclProcesses.cpp - the stand-in NCCL across processes ------===//
//
// With $MT_NCCL_STANDIN_DIR set, the stand-in's communicators join ranks in
// several processes of one machine (mpirun's), so the NCCL path of mt-run
// under MPI runs without GPUs. Ranks meet through files in a directory the
// unique id names, made under $MT_NCCL_STANDIN_DIR:
//  - a collective's round r: each rank writes `r<r>.<rank>` (its call and
//    its input), reads everyone's, and computes its own result in rank
//    order, as every other rank does; it removes its file of round r - 1
//    then (everyone has read it: they all wrote round r after);
//  - a send writes `m<from>-<to>-<n>` and goes on; the receive waits for it,
//    reads it and removes it.
// Files appear whole (written aside, then renamed). A wait polls; it fails
// with ncclRemoteError when the rank is aborted, when the process of a rank
// it waits for is gone (named, with its pid), or after the timeout.
//
//===----------------------------------------------------------------------===//
#include "StandInNccl.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <thread>
#include <vector>

using namespace mt::nccl;
using namespace mt::nccl::standin;

struct mt::nccl::standin::ProcessGroup {
  std::string dir;
  int size = 0;
  std::vector<long> pids; // by rank
  unsigned long long round = 0;
  std::map<int, unsigned long long> sent, received; // messages by peer
};

namespace {

/// What a rank writes ahead of its data.
struct Header {
  int32_t kind, type, op, color, key, ranks;
  int64_t pid;
  uint64_t count;
  int64_t root = 0; // ncclReduce's
};

std::string roundFile(const ProcessGroup &g, unsigned long long round, int rank) {
  return g.dir + "/r" + std::to_string(round) + "." + std::to_string(rank);
}

std::string messageFile(const ProcessGroup &g, int from, int to, unsigned long long n) {
  return g.dir + "/m" + std::to_string(from) + "-" + std::to_string(to) + "-" + std::to_string(n);
}

/// Writes `header` and `bytes` of `data` aside, then renames: readers see
/// the file whole or not at all. Empty, or why it failed.
std::string writeWhole(const std::string &path, const Header &header, const void *data,
                       size_t bytes) {
  std::string aside = path + ".part";
  int fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return "cannot write " + aside + ": " + std::strerror(errno);
  bool ok = ::write(fd, &header, sizeof header) == static_cast<ssize_t>(sizeof header);
  const char *p = static_cast<const char *>(data);
  for (size_t done = 0; ok && done < bytes;) {
    ssize_t n = ::write(fd, p + done, bytes - done);
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(aside.c_str(), path.c_str()) != 0)
    return "cannot write " + path + ": " + std::strerror(errno);
  return "";
}

/// The file's header and data; false if it is not there (yet).
bool readWhole(const std::string &path, Header &header, std::vector<char> &data) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0);
  if (size < static_cast<std::streamoff>(sizeof header))
    return false;
  in.read(reinterpret_cast<char *>(&header), sizeof header);
  data.resize(static_cast<size_t>(size) - sizeof header);
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(in);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// Whether process `pid` still runs (a zombie does not: it ended, and
/// waits only for its parent to collect it).
bool running(long pid) {
  if (pid <= 0)
    return true; // not known yet: it has not joined
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)
    return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return true;
  size_t close = line.rfind(')'); // the state follows the command's name
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

/// Waits until `missing()` names no rank (-1), polling. Fails on the rank's
/// abort, when the process of the rank awaited is gone, or at the timeout.
Result awaitRanks(Comm comm, const std::string &what, const std::function<int()> &missing) {
  const ProcessGroup &g = *comm->process;
  auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(10);
  for (;;) {
    int awaited = missing();
    if (awaited < 0)
      return Success;
    std::string self = what + " on rank " + std::to_string(comm->rank);
    if (comm->aborted)
      return fail(comm, RemoteError, self + ": the communicator was aborted");
    long pid = awaited < static_cast<int>(g.pids.size()) ? g.pids[static_cast<size_t>(awaited)] : 0;
    if (!running(pid))
      return fail(comm, RemoteError,
                  self + ": rank " + std::to_string(awaited) + " of the communicator (pid " +
                      std::to_string(pid) + ") is gone: its process ended (stand-in NCCL)");
    if (std::chrono::steady_clock::now() - start > timeout())
      return fail(comm, RemoteError,
                  self + " waited " + std::to_string(timeout().count()) + " s for rank " +
                      std::to_string(awaited) + " (stand-in NCCL)");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

size_t inputBytes(const Call &call, int ranks, size_t elementBytes) {
  switch (call.kind) {
  case Kind::AllReduce:
  case Kind::AllGather:
  case Kind::Reduce:
    return call.count * elementBytes;
  case Kind::ReduceScatter:
    return call.count * elementBytes * static_cast<size_t>(ranks);
  case Kind::Split:
    break;
  }
  return 0;
}

Call callOf(const Header &h) {
  Call c{static_cast<Kind>(h.kind)};
  c.count = h.count;
  c.type = static_cast<DataType>(h.type);
  c.op = static_cast<RedOp>(h.op);
  c.root = static_cast<int>(h.root);
  return c;
}

/// This rank's part of a split: its new communicator, or null.
Result splitOf(Comm comm, const Call &call, unsigned long long round,
               const std::vector<Header> &headers) {
  const ProcessGroup &g = *comm->process;
  *call.split = nullptr;
  if (call.color == kSplitNoColor)
    return Success;
  std::vector<std::pair<int, int>> members; // (key, rank)
  for (int r = 0; r < g.size; ++r)
    if (headers[static_cast<size_t>(r)].color == call.color)
      members.push_back({headers[static_cast<size_t>(r)].key, r});
  std::sort(members.begin(), members.end());
  auto child = std::make_shared<ProcessGroup>();
  child->dir = g.dir + "/s" + std::to_string(round) + "c" + std::to_string(call.color);
  child->size = static_cast<int>(members.size());
  int index = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    child->pids.push_back(g.pids[static_cast<size_t>(members[i].second)]);
    if (members[i].second == comm->rank)
      index = static_cast<int>(i);
  }
  if (::mkdir(child->dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fail(comm, SystemError,
                "ncclCommSplit: cannot make " + child->dir + ": " + std::strerror(errno));
  Comm made = new CommState;
  made->rank = index;
  made->process = std::move(child);
  *call.split = made;
  return Success;
}

/// Everyone's input is in: this rank's result, in rank order.
Result finish(Comm comm, const Call &call, unsigned long long round,
              const std::vector<Header> &headers, const std::vector<std::vector<char>> &inputs) {
  const ProcessGroup &g = *comm->process;
  Call first = callOf(headers[0]);
  for (int r = 1; r < g.size; ++r) {
    Call c = callOf(headers[static_cast<size_t>(r)]);
    if (!sameCall(first, c))
      return fail(comm, InvalidUsage,
                  "mismatched collectives: " + describe(first, 0) + " met " + describe(c, r));
  }
  if (call.kind == Kind::Split)
    return splitOf(comm, call, round, headers);
  mt::ElementType type = *elementType(call.type);
  size_t bytes = call.count * static_cast<size_t>(mt::elementBytes(type));
  if (call.kind == Kind::AllGather) {
    for (int r = 0; r < g.size; ++r)
      std::memcpy(static_cast<char *>(call.recv) + static_cast<size_t>(r) * bytes,
                  inputs[static_cast<size_t>(r)].data(), bytes);
    return Success;
  }
  std::vector<char> sum = inputs[0];
  size_t elements = sum.size() / static_cast<size_t>(mt::elementBytes(type));
  mt::ReduceOp op = call.op == Sum ? mt::ReduceOp::Sum : mt::ReduceOp::Max;
  for (int r = 1; r < g.size; ++r)
    mt::combineElements(sum.data(), inputs[static_cast<size_t>(r)].data(),
                        static_cast<int64_t>(elements), type, op);
  if (call.kind == Kind::Reduce) {
    if (comm->rank == call.root)
      std::memcpy(call.recv, sum.data(), bytes);
    return Success;
  }
  size_t offset = call.kind == Kind::AllReduce ? 0 : static_cast<size_t>(comm->rank) * bytes;
  std::memcpy(call.recv, sum.data() + offset, bytes);
  return Success;
}

} // namespace

namespace mt::nccl::standin {

const char *processesDirectory() {
  const char *dir = std::getenv("MT_NCCL_STANDIN_DIR");
  return dir && *dir ? dir : nullptr;
}

Result makeProcessesId(UniqueId *id) {
  std::string pattern = std::string(processesDirectory()) + "/comm-XXXXXX";
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (!::mkdtemp(path.data()))
    return fail(nullptr, SystemError,
                "ncclGetUniqueId: cannot make a directory under MT_NCCL_STANDIN_DIR (" + pattern +
                    "): " + std::strerror(errno));
  std::string text = std::string(kProcessesIdPrefix) + path.data();
  if (text.size() >= sizeof id->internal)
    return fail(nullptr, InvalidUsage,
                "ncclGetUniqueId: MT_NCCL_STANDIN_DIR is too long for an NCCL id (" +
                    std::to_string(sizeof id->internal) + " bytes)");
  std::memset(id->internal, 0, sizeof id->internal);
  std::memcpy(id->internal, text.data(), text.size());
  return Success;
}

Result joinProcesses(Comm comm, int ranks, const std::string &dir, int rank) {
  auto g = std::make_shared<ProcessGroup>();
  g->dir = dir;
  g->size = ranks;
  comm->process = g;
  Header mine{0, 0, 0, 0, 0, ranks, static_cast<int64_t>(::getpid()), 0};
  std::string join = dir + "/join.";
  if (std::string e = writeWhole(join + std::to_string(rank), mine, nullptr, 0); !e.empty())
    return fail(comm, SystemError, "ncclCommInitRank: " + e);
  // No pids yet: the wait ends at a join or the timeout.
  g->pids.assign(static_cast<size_t>(ranks), 0);
  if (Result r = awaitRanks(comm, "ncclCommInitRank",
                            [&] {
                              for (int k = 0; k < ranks; ++k)
                                if (!exists(join + std::to_string(k)))
                                  return k;
                              return -1;
                            });
      r != Success)
    return r;
  for (int k = 0; k < ranks; ++k) {
    Header h;
    std::vector<char> none;
    if (!readWhole(join + std::to_string(k), h, none))
      return fail(comm, SystemError, "ncclCommInitRank: cannot read " + join + std::to_string(k));
    if (h.ranks != ranks)
      return fail(comm, InvalidUsage,
                  "ncclCommInitRank: rank " + std::to_string(rank) + " of " +
                      std::to_string(ranks) + " met rank " + std::to_string(k) + " of " +
                      std::to_string(h.ranks));
    g->pids[static_cast<size_t>(k)] = static_cast<long>(h.pid);
  }
  return Success;
}

int sizeOf(const ProcessGroup &group) { return group.size; }

Result processesCollective(Comm comm, const Call &call) {
  ProcessGroup &g = *comm->process;
  std::optional<mt::ElementType> type = elementType(call.type);
  if (call.kind != Kind::Split && !type)
    return fail(comm, InvalidArgument,
                std::string(kindName(call.kind)) + ": the stand-in NCCL does not know type " +
                    std::to_string(static_cast<int>(call.type)));
  if (call.kind != Kind::Split && call.kind != Kind::AllGather && call.op != Sum &&
      call.op != Max)
    return fail(comm, InvalidArgument, "the stand-in NCCL reduces with ncclSum and ncclMax only");
  if (call.kind == Kind::Reduce && (call.root < 0 || call.root >= g.size))
    return fail(comm, InvalidArgument,
                "ncclReduce: root " + std::to_string(call.root) + " is not a rank of " +
                    std::to_string(g.size));
  unsigned long long round = g.round++;
  Header mine{static_cast<int32_t>(call.kind), static_cast<int32_t>(call.type),
              static_cast<int32_t>(call.op), call.color, call.key, g.size,
              static_cast<int64_t>(::getpid()), call.count};
  mine.root = call.root;
  size_t bytes = type ? inputBytes(call, g.size, static_cast<size_t>(mt::elementBytes(*type))) : 0;
  if (std::string e = writeWhole(roundFile(g, round, comm->rank), mine, call.send, bytes);
      !e.empty())
    return fail(comm, SystemError, std::string(kindName(call.kind)) + ": " + e);
  std::vector<Header> headers(static_cast<size_t>(g.size));
  std::vector<std::vector<char>> inputs(static_cast<size_t>(g.size));
  std::vector<bool> read(static_cast<size_t>(g.size), false);
  if (Result r = awaitRanks(comm, kindName(call.kind),
                            [&] {
                              for (int k = 0; k < g.size; ++k) {
                                auto i = static_cast<size_t>(k);
                                if (!read[i] && !readWhole(roundFile(g, round, k), headers[i],
                                                           inputs[i]))
                                  return k;
                                read[i] = true;
                              }
                              return -1;
                            });
      r != Success)
    return r;
  Result result = finish(comm, call, round, headers, inputs);
  if (round > 0)
    std::remove(roundFile(g, round - 1, comm->rank).c_str());
  return result;
}

Result processesSend(Comm comm, const void *data, size_t count, DataType type, int peer) {
  ProcessGroup &g = *comm->process;
  std::optional<mt::ElementType> t = elementType(type);
  if (!t)
    return fail(comm, InvalidArgument,
                "ncclSend: unknown data type " + std::to_string(static_cast<int>(type)));
  Header h{0, static_cast<int32_t>(type), 0, 0, 0, g.size, static_cast<int64_t>(::getpid()),
           count};
  std::string path = messageFile(g, comm->rank, peer, g.sent[peer]++);
  if (std::string e = writeWhole(path, h, data, count * static_cast<size_t>(mt::elementBytes(*t)));
      !e.empty())
    return fail(comm, SystemError, "ncclSend: " + e);
  return Success;
}

Result processesRecv(Comm comm, void *data, size_t count, DataType type, int peer) {
  ProcessGroup &g = *comm->process;
  std::string path = messageFile(g, peer, comm->rank, g.received[peer]++);
  Header h;
  std::vector<char> message;
  if (Result r = awaitRanks(comm, "ncclRecv",
                            [&] { return readWhole(path, h, message) ? -1 : peer; });
      r != Success)
    return r;
  std::remove(path.c_str());
  std::optional<mt::ElementType> t = elementType(type);
  if (h.count != count || h.type != static_cast<int32_t>(type) || !t)
    return fail(comm, InvalidUsage,
                "ncclRecv on rank " + std::to_string(comm->rank) + " of " +
                    std::to_string(count) + " elements of type " +
                    std::to_string(static_cast<int>(type)) + " met ncclSend from rank " +
                    std::to_string(peer) + " of " + std::to_string(h.count) +
                    " elements of type " + std::to_string(h.type));
  std::memcpy(data, message.data(), count * static_cast<size_t>(mt::elementBytes(*t)));
  return Success;
}

} // namespace mt::nccl::standin
