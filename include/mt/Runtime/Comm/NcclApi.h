//===- NcclApi.h - the part of NCCL's C interface mt-run calls -*- C++ -*-===//
//
// nccl.h includes the CUDA runtime's headers, which the runtime is built
// without, and NCCL is loaded only by runs that use it. So its types and
// entry points are declared here, in a namespace, with the values of
// NCCL 2.28's nccl.h; unittests/NcclApiTest.cpp checks them against that
// header wherever the CUDA toolkit is. The stand-in NCCL of the tests
// (lib/Runtime/CUDA/StandInNccl.cpp) implements the same list.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_NCCLAPI_H
#define MT_RUNTIME_COMM_NCCLAPI_H

#include <cstddef>

namespace mt::nccl {

struct CommState;
using Comm = CommState *; // ncclComm_t
using Stream = void *;    // cudaStream_t, a CUstream

struct UniqueId {
  char internal[128];
};

enum Result : int {
  Success = 0,
  UnhandledCudaError = 1,
  SystemError = 2,
  InternalError = 3,
  InvalidArgument = 4,
  InvalidUsage = 5,
  RemoteError = 6,
  InProgress = 7,
};

enum RedOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3, Avg = 4 };

enum DataType : int {
  Int8 = 0,
  Uint8 = 1,
  Int32 = 2,
  Uint32 = 3,
  Int64 = 4,
  Uint64 = 5,
  Float16 = 6,
  Float32 = 7,
  Float64 = 8,
  Bfloat16 = 9,
};

constexpr int kSplitNoColor = -1;
/// NCCL 2.18, the first with ncclCommSplit (PyTorch's wheels carry 2.18 or
/// later). mt-run passes no ncclConfig_t, whose layout changes between
/// versions.
constexpr int kMinimumVersion = 21800;

/// ncclConfig_t of NCCL 2.28 (ncclConfig_v22800), for the signature only.
struct Config {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char *netName;
  int splitShare;
  int trafficClass;
  const char *commName;
  int collnetEnable;
  int CTAPolicy;
  int shrinkShare;
  int nvlsCTAs;
  int nChannelsPerNetPeer;
  int nvlinkCentricSched;
};

} // namespace mt::nccl

/// X(name, result, parameters): the entry point "nccl" #name.
#define MT_NCCL_API(X)                                                                             \
  X(GetVersion, Result, (int *version))                                                            \
  X(GetUniqueId, Result, (UniqueId * id))                                                          \
  X(CommInitRank, Result, (Comm * comm, int ranks, UniqueId id, int rank))                         \
  X(CommSplit, Result, (Comm comm, int color, int key, Comm *split, Config *config))               \
  X(CommDestroy, Result, (Comm comm))                                                              \
  X(CommAbort, Result, (Comm comm))                                                                \
  X(CommGetAsyncError, Result, (Comm comm, Result * error))                                        \
  X(GetErrorString, const char *, (Result result))                                                 \
  X(GetLastError, const char *, (Comm comm))                                                       \
  X(AllReduce, Result,                                                                             \
    (const void *send, void *recv, size_t count, DataType type, RedOp op, Comm comm,              \
     Stream stream))                                                                               \
  X(ReduceScatter, Result,                                                                         \
    (const void *send, void *recv, size_t recvCount, DataType type, RedOp op, Comm comm,          \
     Stream stream))                                                                               \
  X(Reduce, Result,                                                                                \
    (const void *send, void *recv, size_t count, DataType type, RedOp op, int root, Comm comm,    \
     Stream stream))                                                                               \
  X(AllGather, Result,                                                                             \
    (const void *send, void *recv, size_t sendCount, DataType type, Comm comm, Stream stream))     \
  X(Send, Result,                                                                                  \
    (const void *send, size_t count, DataType type, int peer, Comm comm, Stream stream))          \
  X(Recv, Result, (void *recv, size_t count, DataType type, int peer, Comm comm, Stream stream))  \
  X(GroupStart, Result, ())                                                                        \
  X(GroupEnd, Result, ())

namespace mt::nccl {

/// The entry points, as loaded from a library.
struct Api {
#define MT_NCCL_SLOT(name, result, params) result(*name) params = nullptr;
  MT_NCCL_API(MT_NCCL_SLOT)
#undef MT_NCCL_SLOT
};

} // namespace mt::nccl

#endif
