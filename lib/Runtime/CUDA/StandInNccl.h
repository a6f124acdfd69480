//===- StandInNccl.h - the stand-in NCCL's parts, shared by its files -*- C++ -*-===//
//
// The stand-in NCCL (StandInNccl.cpp) joins the rank threads of one process
// through memory. With $MT_NCCL_STANDIN_DIR set it joins ranks in several
// processes of one machine instead (mpirun's), through files in that
// directory (StandInNcclProcesses.cpp). Both keep the same rules: calls
// meet in issue order, sums go in rank order with the host transports'
// arithmetic, a send outside a group is eager.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_RUNTIME_CUDA_STANDINNCCL_H
#define MT_LIB_RUNTIME_CUDA_STANDINNCCL_H

#include "mt/Runtime/Comm/ElementCombine.h"
#include "mt/Runtime/Comm/NcclApi.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mt::nccl::standin {
/// The ranks of a communicator on threads of this process, meeting in memory.
struct Clique;
/// The ranks of a communicator in several processes, meeting through files.
struct ProcessGroup;
} // namespace mt::nccl::standin

struct mt::nccl::CommState {
  std::shared_ptr<standin::Clique> clique;        // ranks on threads of this process
  std::shared_ptr<standin::ProcessGroup> process; // or ranks in several processes
  int rank = 0;
  // Set by ncclCommAbort and failures, possibly from another thread.
  std::atomic<bool> aborted{false};
  std::atomic<Result> asyncError{Success};
  std::string lastError;
};

namespace mt::nccl::standin {

enum class Kind { AllReduce, ReduceScatter, AllGather, Split, Reduce };

const char *kindName(Kind kind);

/// One rank's part of a collective.
struct Call {
  Kind kind;
  const void *send = nullptr;
  void *recv = nullptr;
  size_t count = 0;
  DataType type = Float32;
  RedOp op = Sum;
  int root = 0; // ncclReduce: the rank that receives the sum
  int color = 0, key = 0;
  Comm *split = nullptr;
};

/// "ncclAllReduce on rank 1 (8 elements of type 7, op 0)".
std::string describe(const Call &call, int rank);

/// Whether two members' calls of a round agree (kind, size, type, op, root).
bool sameCall(const Call &a, const Call &b);

/// How long a wait may last ($MT_NCCL_STANDIN_TIMEOUT seconds, default 600).
std::chrono::seconds timeout();

std::optional<mt::ElementType> elementType(DataType type);

/// Records `text` as `comm`'s last error (ncclRemoteError also as its
/// asynchronous error) and returns `result`.
Result fail(Comm comm, Result result, std::string text);

/// A new communicator's state for rank `rank` (counted in the tally).
Comm newComm(int rank);


/// How the ids of the processes mode begin (then the directory's path).
constexpr const char *kProcessesIdPrefix = "mt-nccl-standin-dir:";

/// $MT_NCCL_STANDIN_DIR, or null: the processes mode is off.
const char *processesDirectory();
/// A unique id naming a new directory under processesDirectory().
Result makeProcessesId(UniqueId *id);
/// Joins rank `rank` of `ranks` to the communicator `id` names.
Result joinProcesses(Comm comm, int ranks, const std::string &id, int rank);
int sizeOf(const ProcessGroup &group);
/// A collective (a split too) of `comm`, in the processes mode.
Result processesCollective(Comm comm, const Call &call);
/// An eager send, and a receive that waits for its message.
Result processesSend(Comm comm, const void *data, size_t count, DataType type, int peer);
Result processesRecv(Comm comm, void *data, size_t count, DataType type, int peer);

} // namespace mt::nccl::standin

#endif
