//===- FunctionRunner.cpp - calls a plan's compiled functions -------------===//
#include "mt/Runtime/Training/FunctionRunner.h"

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Code/PlanCode.h"
#include "mt/Runtime/Comm/CompiledCollectives.h"

#include <algorithm>
#include <cstring>

namespace mt {

bool CompiledFunctions::load(const plan::Plan &plan, std::string &error) {
  // Rank threads of one process each take a GPU of their own where there
  // are enough (CudaBackend::load).
  bool threads = place_.comm && place_.comm->transport().name() == "threads";
  int localRank = threads ? static_cast<int>(place_.rank) : -1;
  if (!loadPlanCode(plan, module_, cuda_, error, localRank) ||
      !installCollectiveHooks(module_, error))
    return false;
  buffers_.setMemory(cuda_.get());
  if (cuda_ && !cuda_->synchronize(error)) // the kernels' load
    return false;
  return true;
}

void CompiledFunctions::allocateArena(int64_t bytes) {
  arenaBytes_ = bytes;
  arena_ = std::make_unique<Buffer>(std::vector<int64_t>{bytes}, 1, cuda_.get());
  buffers_.noteAllocation(*arena_, "the arena of " + std::to_string(bytes) + " bytes");
}

bool CompiledFunctions::call(const plan::Function &fn, std::string &error) {
  // Outputs that overwrite an input (accumulators, optimizer state) go to a
  // scratch buffer first: compiled functions assume no aliasing.
  std::vector<Buffer *> args;
  std::vector<std::string> replaced;
  std::map<std::string, bool> isInput;
  for (const auto *specs : {&fn.inputs(), &fn.outputs()})
    for (const auto &s : *specs)
      if (buffers::isSaved(s.name()) && !buffers_.find(s.name())) {
        error = "function " + fn.name() + " runs without its saved activations '" + s.name() +
                "' in place (a pipeline schedule out of step with the plan)";
        return false;
      }
  for (const auto &s : fn.inputs()) {
    args.push_back(&buffers_.ensure(s));
    isInput[s.name()] = true;
    // Shared stage code takes its caller's first layer.
    if (buffers::unstaged(s.name()) == buffers::kLayerOffset)
      args.back()->as<int64_t>()[0] = fn.layer_offset();
  }
  for (const auto &s : fn.outputs()) {
    if (isInput.count(s.name())) {
      plan::TensorSpec scratch = s;
      scratch.set_name(s.name() + "#next");
      args.push_back(&buffers_.ensure(scratch));
      replaced.push_back(s.name());
    } else {
      args.push_back(&buffers_.ensure(s));
    }
  }
  args.push_back(arena_.get());
  if (!buffers_.allocationError().empty()) {
    error = "out of GPU memory: " + buffers_.allocationError();
    return false;
  }
  if (cuda_ && !cuda_->bindThread(error))
    return false;
  // Each function's calls alternate two patterns.
  uint8_t pattern = (arenaCalls_[fn.name()]++ % 2) ? 0x5A : 0xA5;
  if (measureArena_)
    std::memset(arena_->data(), pattern, static_cast<size_t>(arenaBytes_));
  Communicator *comm = place_.comm;
  CollectiveContext collectives{comm, &place_.mesh, place_.rank, fn.name(),
                                "",   cuda_.get(),  gradients_};
  collectives.nccl = nccl_;
  collectives.stream = nccl_ && cuda_ ? cuda_->stream() : nullptr;
  // A GPU's streams do not take cores from the compute: auto starts them.
  collectives.streamStarted = collectives.stream && overlap_ != CollectiveOverlap::Off;
  collectives.queueStarted =
      comm && (overlap_ == CollectiveOverlap::On ||
               (overlap_ == CollectiveOverlap::Auto && comm->transport().name() == "mpi"));
  {
    CollectiveScope scope(collectives);
    bool called = module_.call(fn.entry().empty() ? fn.name() : fn.entry(), args, error);
    collectives.finish();
    commSeconds_ += collectives.blockedSeconds;
    if (!called)
      return false;
  }
  // The host reads what the GPU wrote (losses, norms) after this.
  if (cuda_ && !cuda_->synchronize(error)) {
    error = "function " + fn.name() + ": " + error;
    return false;
  }
  if (measureArena_) {
    const uint8_t *bytes = arena_->as<uint8_t>();
    int64_t reached = arenaBytes_;
    while (reached > 0 && bytes[reached - 1] == pattern)
      --reached;
    int64_t &most = arenaReached_[fn.name()];
    most = std::max(most, reached);
  }
  if (!collectives.error.empty()) {
    error = collectives.error;
    return false;
  }
  for (const std::string &name : replaced)
    buffers_.exchange(name, name + "#next");
  return true;
}

} // namespace mt
