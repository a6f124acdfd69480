//===- CompiledCollectives.h - collectives called from compiled code -*- C++ -*-===//
//
// Tensor-parallel programs call collectives from inside compiled functions
// (mt_rt_* of mt/Runtime/Abi.h). They reach the calling rank's communicator
// through a thread-local context, so one process can run several ranks on
// threads. A failure (a peer that died, a mismatched collective) cannot
// unwind through compiled frames: it is recorded in the context, the
// remaining collectives of the call return at once, and the caller reports
// the error when the compiled function returns.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_COMPILEDCOLLECTIVES_H
#define MT_RUNTIME_COMM_COMPILEDCOLLECTIVES_H

#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Code/CpuModule.h"
#include "mt/Runtime/Code/CudaBackend.h"
#include "mt/Runtime/Comm/CollectiveQueue.h"
#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/DeviceCollectives.h"
#include "mt/Runtime/Comm/GradientSink.h"
#include "mt/Sharding/MeshShape.h"

#include <memory>
#include <string>
#include <vector>

namespace mt {

struct CollectiveContext {
  Communicator *comm = nullptr;
  const MeshShape *mesh = nullptr; // axes [pp, dp, tp]
  int64_t rank = 0;
  std::string function; // the compiled function running, for messages
  std::string error;    // the first failure of the call
  /// The GPU whose queued work a collective waits for before it reads the
  /// buffers (null on the CPU).
  CudaBackend *device = nullptr;
  /// Where the step's mt.gradient_ready signals go (null: ignored).
  GradientSink *gradients = nullptr;
  /// The rank's NCCL communicators (--collectives=nccl; null: the host
  /// transport carries the collectives) and the stream they run on (the
  /// rank's; null where the calling thread is the stream, an emulated plan).
  DeviceCollectives *nccl = nullptr;
  void *stream = nullptr;
  /// Seconds the call stood still in collectives (a collective run whole,
  /// or a wait for one started earlier): its communication not hidden.
  double blockedSeconds = 0;
  /// Whether collectives started ahead of their mt.collective_wait move on
  /// a thread of their own (else they run whole where they start).
  bool queueStarted = false;
  /// The call's collectives started ahead of their mt.collective_wait
  /// (made at the first; finish() waits for what is left).
  std::unique_ptr<CollectiveQueue> inFlight;
  /// Under NCCL on a GPU: whether collectives started ahead of their wait
  /// run on a stream of their own (else whole where they start), that
  /// stream (made at the first), and whether the rank's stream has yet to
  /// take up after what was queued there.
  bool streamStarted = false;
  void *startedStream = nullptr;
  bool startedPending = false;

  /// After the call: waits for collectives still in flight (a wait the
  /// code never reached), recording a failure in `error`.
  void finish();
};

/// Points the module's mt_rt_* entries at this runtime; false with `error`
/// when the module predates them.
bool installCollectiveHooks(CpuModule &module, std::string &error);

/// The runtime's reading of the codes compiled code passes
/// (mt/Runtime/Abi.h); false for a code the ABI does not define.
bool elementTypeOfCode(int64_t code, ElementType &type);
bool reduceOpOfCode(int64_t code, ReduceOp &op);
/// The mesh axes of a mask, in mesh order ([pp, dp, tp]).
bool meshAxesOfMask(int64_t mask, std::vector<std::string> &axes);

/// Makes `context` the calling thread's while alive.
class CollectiveScope {
public:
  explicit CollectiveScope(CollectiveContext &context);
  ~CollectiveScope();

private:
  CollectiveContext *previous_;
};

} // namespace mt

#endif // MT_RUNTIME_COMM_COMPILEDCOLLECTIVES_H
