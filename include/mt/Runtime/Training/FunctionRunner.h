//===- FunctionRunner.h - calls a plan's compiled functions -----*- C++ -*-===//
//
// FunctionRunner is what the stage executor and the optimizer step call a
// function through; CompiledFunctions runs this rank's native (and CUDA)
// code: arguments by name from the buffer store, one arena shared by every
// function, the collectives the code calls routed to this rank's
// communicator. Tests put a stand-in behind the interface.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_FUNCTIONRUNNER_H
#define MT_RUNTIME_TRAINING_FUNCTIONRUNNER_H

#include "mt/Runtime/Code/CpuModule.h"
#include "mt/Runtime/Code/CudaBackend.h"
#include "mt/Runtime/Comm/CollectiveQueue.h"
#include "mt/Runtime/Comm/DeviceCollectives.h"
#include "mt/Runtime/Training/BufferStore.h"
#include "mt/Runtime/Training/RankPlace.h"

#include <map>
#include <memory>
#include <string>

namespace mt {

class GradientSink;

class FunctionRunner {
public:
  virtual ~FunctionRunner() = default;
  /// Calls `fn` on its buffers; false with `error`.
  virtual bool call(const plan::Function &fn, std::string &error) = 0;
  /// Where the calls' mt.gradient_ready signals go from now on (null:
  /// nowhere).
  virtual void signalGradientsTo(GradientSink *) {}
};

class CompiledFunctions : public FunctionRunner {
public:
  CompiledFunctions(BufferStore &buffers, const RankPlace &place)
      : buffers_(buffers), place_(place) {}

  /// Loads `plan`'s code (and the GPU's, for a CUDA plan).
  bool load(const plan::Plan &plan, std::string &error);
  /// The GPU the plan runs on; null for a CPU plan.
  CudaBackend *gpu() const { return cuda_.get(); }
  /// Allocates the arena: as large as the largest function's.
  void allocateArena(int64_t bytes);
  int64_t arenaBytes() const { return arenaBytes_; }

  bool call(const plan::Function &fn, std::string &error) override;
  void signalGradientsTo(GradientSink *sink) override { gradients_ = sink; }

  void overlapCollectives(CollectiveOverlap mode) { overlap_ = mode; }
  /// The collectives of the calls from now on run as NCCL calls through
  /// `nccl` (null: over the host transport).
  void runCollectivesOn(DeviceCollectives *nccl) { nccl_ = nccl; }
  /// Seconds the calls since the last reset stood still in collectives.
  double commSeconds() const { return commSeconds_; }
  void resetCommSeconds() { commSeconds_ = 0; }

  /// Measures, from now on, how far into the arena each function writes:
  /// before every call the arena is filled with a pattern (alternating two,
  /// so no written value can pass for the pattern twice) and afterwards
  /// scanned for the highest byte that changed. Slows every call down.
  void measureArena() { measureArena_ = true; }
  /// Per function name: the most bytes of the arena it wrote in one call.
  const std::map<std::string, int64_t> &arenaHighWaterMarks() const { return arenaReached_; }

private:
  // Declared first so the GPU outlives the arena in its memory.
  std::unique_ptr<CudaBackend> cuda_;
  CpuModule module_;
  BufferStore &buffers_;
  const RankPlace &place_;
  std::unique_ptr<Buffer> arena_;
  int64_t arenaBytes_ = 0;
  CollectiveOverlap overlap_ = CollectiveOverlap::Auto;
  GradientSink *gradients_ = nullptr;
  DeviceCollectives *nccl_ = nullptr;
  double commSeconds_ = 0;
  bool measureArena_ = false;
  std::map<std::string, int64_t> arenaCalls_, arenaReached_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_FUNCTIONRUNNER_H
