//===- Trainer.cpp - runs a plan's training step on one rank --------------===//
#include "mt/Runtime/Training/Trainer.h"

#include "mt/Plan/VerifyPlan.h"
#include "mt/Runtime/Comm/GpuSharing.h"

#include <algorithm>
#include <chrono>

namespace mt {

bool Trainer::load(const plan::Plan &plan, int64_t rank, Communicator *comm, std::string &error) {
  plan_ = plan;
  // A plan read from a file was verified there; one built in memory is now.
  if (llvm::Error e = verifyPlan(plan_)) {
    error = llvm::toString(std::move(e));
    return false;
  }
  if (!RankPlace::locate(plan_, rank, comm ? comm->size() : 1, place_, error))
    return false;
  place_.comm = comm;
  const plan::Config &c = plan_.config();
  optimizer_.configure(c);
  gradients_.setDistributed(c.parallel().distributed_optimizer());
  if (!functions_.load(plan_, error))
    return false;
  gradients_.setGpu(functions_.gpu());
  executor_.onLastBackward([this](const LocalStage &st) { gradients_.startOverlap(st); });
  if (!params_.layOut(plan_, place_, error) || !executor_.build(plan_, params_, error))
    return false;
  params_.initialize(buffers_, c.seed());
  return allocateFunctionBuffers(error);
}

bool Trainer::ncclRefusal(const NcclLibrary &nccl, std::string &refusal, std::string &error) {
  refusal.clear();
  CudaBackend *gpu = functions_.gpu();
  bool ranks = place_.comm && place_.comm->size() > 1;
  // NCCL moves device memory; only the tests' stand-in takes host memory
  // (an emulated plan's buffers), to check the calls without GPUs.
  if (!gpu && !nccl.isStandIn())
    refusal = "this plan runs on the CPU, and NCCL moves GPU memory (CPU plans' collectives use "
              "the host transport; compile with --target=cuda)";
  // The stand-in works on host memory when called, not in stream order: a
  // real GPU's kernels would not have written its inputs yet.
  else if (gpu && nccl.isStandIn() && gpu->device().rfind("stand-in", 0) != 0)
    refusal = nccl.path() + " is the tests' stand-in NCCL, which cannot serve a real GPU (unset "
                            "MT_NCCL_LIBRARY to use libnccl.so.2)";
  // Ranks (processes on one machine, or rank threads) that would share a
  // GPU: NCCL refuses two ranks of a communicator on one, late and in its
  // own words. The stand-in GPUs are told apart the same way
  // (MT_CUDA_STANDIN_GPUS). The gather is collective, so every rank makes
  // it whatever its own checks found.
  if (ranks) {
    std::vector<std::string> places;
    if (!gatherGpuPlaces(*place_.comm, gpuPlace(gpu ? gpu->busId() : "no GPU"), places, error))
      return false;
    if (refusal.empty() && gpu)
      refusal = sharedGpuError(places);
  }
  return true;
}

bool Trainer::runCollectivesWithNccl(const NcclLibrary &nccl, std::string &error) {
  std::string refusal;
  if (!ncclRefusal(nccl, refusal, error))
    return false;
  if (!refusal.empty()) {
    error = "--collectives=nccl: " + refusal;
    return false;
  }
  // NCCL takes the device current on the calling thread.
  if (functions_.gpu() && !functions_.gpu()->bindThread(error))
    return false;
  nccl_ = DeviceCollectives::open(nccl, place_.comm, place_.mesh, place_.rank, error);
  if (!nccl_)
    return false;
  if (place_.numStages > 1) {
    if (!nccl_->openPipeline(place_.numStages, place_.mesh.numRanks(), place_.rank,
                             [&](int64_t stage) { return place_.stageRank(stage); },
                             functions_.gpu(), error))
      return false;
    executor_.runPipelineOn(nccl_.get(), functions_.gpu());
  }
  if (!nccl_->openGroups(tiedGroups(plan_, place_), error))
    return false;
  nccl_->watch(place_.comm ? place_.comm->timeout() : 300, place_.rank, functions_.gpu());
  functions_.runCollectivesOn(nccl_.get());
  gradients_.runCollectivesOn(nccl_.get());
  optimizer_.runCollectivesOn(nccl_.get(), functions_.gpu());
  return true;
}

bool Trainer::allocateFunctionBuffers(std::string &error) {
  int64_t arenaBytes = 0;
  for (const plan::Function &f : plan_.functions()) {
    if (!place_.runsStage(f.stage()))
      continue;
    for (const std::string &name : f.updated_in_place())
      if (std::none_of(f.inputs().begin(), f.inputs().end(),
                       [&](const plan::TensorSpec &in) { return in.name() == name; })) {
        error = "the plan is corrupt: function " + f.name() + " updates '" + name +
                "' in place but has no such input";
        return false;
      }
    // Saved activations come in sets per micro-batch (StageExecutor).
    for (const auto *specs : {&f.inputs(), &f.outputs()})
      for (const auto &s : *specs)
        if (!buffers::isSaved(s.name()))
          buffers_.ensure(s);
    if (f.arena_bytes() < 0) {
      error = "the plan is corrupt: function " + f.name() + " has an arena of " +
              std::to_string(f.arena_bytes()) + " bytes";
      return false;
    }
    arenaBytes = std::max(arenaBytes, f.arena_bytes());
  }
  if (!executor_.allocateSaved(error))
    return false;
  // One arena for all of this rank's functions: they run one at a time and
  // keep nothing in it between calls.
  functions_.allocateArena(arenaBytes);
  if (!buffers_.allocationError().empty()) {
    error = "out of GPU memory: " + buffers_.allocationError();
    return false;
  }
  return true;
}

bool Trainer::nextOwnBatches(BatchSource &data, std::vector<MicroBatch> &batches,
                             std::string &error) {
  const plan::Config &c = plan_.config();
  MicroBatch other;
  for (MicroBatch &batch : batches)
    for (int64_t j = 0; j < place_.dp; ++j)
      if (!data.next(c.micro_batch_size(), c.seq_length(), j == place_.dpIndex ? batch : other,
                     error))
        return false;
  return true;
}

bool Trainer::reportMetrics(const StageExecutor::Sums &sums, int64_t micro,
                            std::vector<std::pair<std::string, double>> &out, std::string &error) {
  const std::vector<std::string> &names = executor_.metricNames();
  out.clear();
  for (size_t i = 0; i < names.size(); ++i) {
    double sum = i < sums.metrics.size() ? sums.metrics[i] : 0.0;
    if (!sumOver(place_.comm, place_.ppGroup, sum, names[i], error) ||
        !sumOver(place_.comm, place_.dpGroup, sum, names[i], error))
      return false;
    out.emplace_back(names[i].substr(buffers::metric("").size()), sum / static_cast<double>(micro));
  }
  return true;
}

bool Trainer::step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error) {
  stats.arenaBytes = functions_.arenaBytes();
  stats.savedActivationBytes = executor_.savedActivationBytes();
  stats.gpuBufferBytes = gpu() ? gpu()->peakAllocatedBytes() : 0;
  const plan::Config &c = plan_.config();
  // `micro` counts the global batch's micro-batches over all data-parallel
  // ranks; this rank runs every dp-th of them (Megatron's order: micro-step
  // k covers global micro-batches k*dp .. k*dp+dp-1, one per rank). Dropout
  // keys follow the global index, so masks do not depend on the layout.
  int64_t micro = c.global_batch_size() / c.micro_batch_size();
  gradients_.zero();
  std::vector<MicroBatch> batches(static_cast<size_t>(micro / place_.dp));
  if (!nextOwnBatches(data, batches, error))
    return false;
  stats.exposedCommSeconds = 0;
  functions_.resetCommSeconds();
  StageExecutor::Sums sums;
  bool ran = executor_.train(iteration, batches, optimizer_.lossScale(), sums, error);
  if (!gradients_.finishOverlap(stats, !ran, error))
    return false;
  // The loss lives on the last stage; every rank reports it.
  auto commStart = std::chrono::steady_clock::now();
  if (!sumOver(place_.comm, place_.ppGroup, sums.loss, "loss", error) ||
      !sumOver(place_.comm, place_.dpGroup, sums.loss, "loss", error) || !gradients_.reduce(error))
    return false;
  stats.exposedCommSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - commStart).count();
  if (place_.comm == nullptr || place_.comm->size() == 1)
    stats.exposedCommSeconds = -1; // one rank: nothing to report
  stats.inStepCommSeconds = functions_.commSeconds();
  stats.loss = sums.loss / static_cast<double>(micro);
  double sqNorm = 0;
  return reportMetrics(sums, micro, stats.metrics, error) &&
         optimizer_.gradientSquares(executor_.stages(), sqNorm, error) &&
         optimizer_.apply(executor_.stages(), micro, sqNorm, stats, error);
}

bool Trainer::evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error,
                       std::vector<std::pair<std::string, double>> *metrics) {
  const plan::Config &c = plan_.config();
  MicroBatch batch;
  StageExecutor::Sums sums;
  for (int64_t i = 0; i < batches; ++i) {
    if (!data.next(c.micro_batch_size(), c.seq_length(), batch, error))
      return false;
    if (i % place_.dp != place_.dpIndex)
      continue; // another data-parallel rank's batch
    if (!executor_.evaluate(batch, i, optimizer_.lossScale(), sums, error))
      return false;
  }
  if (!sumOver(place_.comm, place_.ppGroup, sums.loss, "validation loss", error) ||
      !sumOver(place_.comm, place_.dpGroup, sums.loss, "validation loss", error))
    return false;
  loss = batches ? sums.loss / static_cast<double>(batches) : 0;
  std::vector<std::pair<std::string, double>> values;
  if (!reportMetrics(sums, std::max<int64_t>(batches, 1), values, error))
    return false;
  if (metrics)
    *metrics = values;
  return true;
}

} // namespace mt
