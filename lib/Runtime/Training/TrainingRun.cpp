//===- TrainingRun.cpp - one rank's training run ---------------------------===//
#include "mt/Runtime/Training/TrainingRun.h"

#include "mt/Data/Files.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/Training/StopRequest.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <time.h>
#include <unistd.h>

namespace mt {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// CPU time of every thread of this process so far: all rank threads of a
/// threaded run, and their BLAS threads.
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// loss.svg's title: the model, its size where the plan records it, and the
/// layout, e.g. "gpt 12L d768 — tp2 pp2 dp1, bf16, micro-batch 4, global batch 512".
std::string lossCurveTitle(const plan::Config &c) {
  const plan::ModelArchitecture &a = c.architecture();
  const plan::Parallelism &p = c.parallel();
  std::string title = c.model();
  if (a.layers() > 0)
    title += " " + std::to_string(a.layers()) + "L";
  if (a.hidden() > 0)
    title += " d" + std::to_string(a.hidden());
  auto size = [](int64_t n) { return std::to_string(std::max<int64_t>(n, 1)); };
  title += " \u2014 tp" + size(p.tensor_parallel_size()) + " pp" +
           size(p.pipeline_parallel_size()) + " dp" + size(p.data_parallel_size());
  if (p.sequence_parallel())
    title += " sp";
  title += ", " + std::string(activationTypeName(c.activation_type())) + ", micro-batch " +
           std::to_string(c.micro_batch_size()) + ", global batch " +
           std::to_string(c.global_batch_size());
  return title;
}

} // namespace

int TrainingRun::run() {
  std::string error;
  if (prepare(error) && (o_.evalOnly ? evaluateOnly(error) : train(error) && finish(error)))
    return stoppedBy_ ? reportStop() : 0;
  // An empty error: another rank failed and says why.
  error_ =
      comm_.size() > 1 && !error.empty() ? "rank " + std::to_string(rank_) + ": " + error : error;
  return 1;
}

bool TrainingRun::prepare(std::string &error) {
  if (!trainer_.load(plan_, rank_, &comm_, error))
    return false;
  if (o_.measureArena)
    trainer_.measureArena();
  trainer_.overlapGradientReduction(o_.overlapGradReduce);
  trainer_.overlapTensorParallelComm(o_.overlapTpComm);
  const NcclLibrary *nccl = nullptr;
  if (!chooseCollectives(nccl, error))
    return false;
  const plan::Config &c = trainer_.config();
  // --train-iters stops the run early; the data are laid out for the whole
  // schedule either way, so a resumed run continues the same order.
  iters_ = o_.trainIters ? o_.trainIters : c.train_iters();
  data_.configureCache(o_.dataCachePath, lead_);
  if (!openData(error) || !data_.build(o_.split, c.seq_length(), c.seed(), splitTargets(), error))
    return false;
  if (!o_.load.empty() && !resume(error))
    return false;
  saver_ = std::make_unique<CheckpointSaver>(o_.save, o_.saveKeep, o_.asyncSave);
  recorder_ = std::make_unique<RunRecorder>(o_.record, lead_);
  if (recorder_->enabled() && !recorder_->begin(trainer_, error))
    return false;
  trainSource_ = recorder_->enabled() ? &recorder_->wrap(data_.train()) : &data_.train();
  log_ = std::make_unique<TrainingLog>(lead_ ? o_.logDir : std::string(), isatty(fileno(stdout)),
                                       iters_, lead_);
  log_->setTitle(lossCurveTitle(c));
  if (!log_->open(error) ||
      (lead_ && !o_.metricsFile.empty() && !log_->openMetrics(o_.metricsFile, error)))
    return false;
  log_->header(c, data_.train().numSamples(), data_.valid().numSamples(), trainer_.device());
  if (lead_) {
    for (const std::string &note : data_.cacheNotes())
      std::printf("%s\n", note.c_str());
    std::fflush(stdout);
  }
  if (lead_ && nccl) {
    std::printf("collectives: NCCL %d on each rank's stream (%s)\n", nccl->version(),
                nccl->path().c_str());
    std::fflush(stdout);
  }
  if (lead_ && !loadedFrom_.empty()) {
    std::printf("resumed from %s at iteration %lld\n", loadedFrom_.c_str(),
                static_cast<long long>(first_ - 1));
    for (const std::string &note : notes_)
      std::printf("  note: %s\n", note.c_str());
    std::fflush(stdout);
  }
  return true;
}

bool TrainingRun::resume(std::string &error) {
  SplitSource &train = data_.train();
  RunPosition at;
  if (!loadCheckpoint(trainer_, comm_, o_.load, loadedFrom_, at, notes_, error))
    return false;
  // A checkpoint that consumed nothing (an imported model) starts any data order.
  if (!o_.evalOnly && at.trainSamples > 0 && at.trainSplitSamples != train.numSamples())
    notes_.push_back("the training split holds " + std::to_string(train.numSamples()) +
                     " samples, the checkpoint's run had " + std::to_string(at.trainSplitSamples) +
                     " (other data, --split, sequence length or train iterations): the data "
                     "order does not continue exactly");
  train.seek(at.trainSamples);
  // An evaluation alone starts at the split's first sample, so checkpoints
  // evaluated one after another see the same batches.
  data_.valid().seek(o_.evalOnly ? 0 : at.validSamples);
  first_ = at.iteration + 1;
  if (first_ > iters_ && !o_.evalOnly) {
    error = "checkpoint '" + loadedFrom_ + "' is at iteration " + std::to_string(at.iteration) +
            ", the run stops at " + std::to_string(iters_) +
            ": nothing to do (raise --train-iters or compile a plan with more)";
    return false;
  }
  return true;
}

bool TrainingRun::train(std::string &error) {
  start_ = now();
  // --profile: rank 0 starts the timing after the first step (cuBLAS and the
  // driver settle in it) unless there is only one, and pauses it around
  // evaluations.
  profiled_ = o_.profile && lead_ ? trainer_.gpu() : nullptr;
  if (profiled_ && iters_ == first_)
    profiled_->profile(CudaBackend::Profiling::Start);
  for (int64_t it = first_; it <= iters_; ++it) {
    if (rank_ == o_.killRank && it == o_.killStep)
      die_(comm_);
    if (profiled_ && it == first_ + 1)
      profiled_->profile(CudaBackend::Profiling::Start);
    if (profiled_ && (it > first_ || iters_ == first_))
      ++profiledSteps_;
    // A dataset rewritten in place would feed this step other data.
    if (it > first_ && !mappedFilesUnchanged(error))
      return false;
    double t0 = now(), cpu0 = processCpuSeconds();
    StepStats stats;
    if (!trainer_.step(it, *trainSource_, stats, error)) {
      error = "iteration " + std::to_string(it) + ": " + error;
      return false;
    }
    stats.cpuSeconds = processCpuSeconds() - cpu0;
    if (recorder_->enabled() && !recorder_->step(trainer_, it, stats, error))
      return false;
    if (!afterStep(it, stats, now() - t0, error))
      return false;
    bool stop = false;
    if (!stopAgreed(it, stop, error))
      return false;
    if (stop) {
      iters_ = it; // finish() saves here
      log_->stopAfter(it);
      break;
    }
  }
  return true;
}

bool TrainingRun::chooseCollectives(const NcclLibrary *&nccl, std::string &error) {
  using Collectives = TrainingRunOptions::Collectives;
  if (o_.collectives == Collectives::Host)
    return true;
  if (o_.collectives == Collectives::Nccl)
    return (nccl = NcclLibrary::shared(error)) && trainer_.runCollectivesWithNccl(*nccl, error);
  // auto: each step is agreed by every rank, so all take the same path.
  Group world{{}, "world"};
  for (int64_t r = 0; r < comm_.size(); ++r)
    world.ranks.push_back(r);
  auto agreed = [&](bool mine, bool &all) {
    int64_t refused = mine ? 0 : 1;
    if (!comm_.allReduce(world, &refused, 1, ElementType::I64, ReduceOp::Max,
                         "--collectives=auto", error))
      return false;
    all = refused == 0;
    return true;
  };
  std::string why;
  if (!trainer_.gpu())
    why = "a CPU plan";
  else if (comm_.size() == 1)
    why = "one rank";
  const NcclLibrary *library = why.empty() ? NcclLibrary::shared(why) : nullptr;
  bool all = false;
  if (!agreed(library != nullptr, all))
    return false;
  if (all && !trainer_.ncclRefusal(*library, why, error))
    return false;
  if (all && !why.empty())
    library = nullptr;
  if (all && !agreed(library != nullptr, all))
    return false;
  if (all)
    return (nccl = library) && trainer_.runCollectivesWithNccl(*nccl, error);
  if (lead_ && trainer_.gpu() && comm_.size() > 1)
    std::printf("collectives: the host transport (auto: %s)\n",
                why.empty() ? "NCCL cannot serve another rank" : why.c_str());
  return true;
}

bool TrainingRun::stopAgreed(int64_t it, bool &stop, std::string &error) {
  if (rank_ == o_.signalRank && it == o_.signalStep)
    std::raise(SIGTERM);
  int64_t signal = stopSignal();
  if (comm_.size() > 1) {
    Group world{{}, "world"};
    for (int64_t r = 0; r < comm_.size(); ++r)
      world.ranks.push_back(r);
    if (!comm_.allReduce(world, &signal, 1, ElementType::I64, ReduceOp::Max,
                         "stop request after iteration " + std::to_string(it), error))
      return false;
  }
  // A request during the last step: the run ends as planned anyway.
  stop = signal != 0 && it < iters_;
  if (stop)
    stoppedBy_ = static_cast<int>(signal);
  return true;
}

int TrainingRun::reportStop() {
  if (lead_) {
    std::string saved = o_.save.empty() ? "nothing saved (no --save)"
                                        : "checkpoint saved; resume with --load " + o_.save;
    std::printf("mt-run: %s: stopped after iteration %lld; %s\n", stopSignalName(stoppedBy_),
                static_cast<long long>(iters_), saved.c_str());
    std::fflush(stdout);
  }
  return stopExitCode(stoppedBy_);
}

bool TrainingRun::afterStep(int64_t it, const StepStats &stats, double seconds,
                            std::string &error) {
  const plan::Config &c = trainer_.config();
  if (stats.overflow) {
    // fp16 overflow: the loss scale was lowered; expected while it settles.
    ++skippedTotal_;
  } else if (stats.skipped) {
    ++skippedTotal_;
    if (++skippedInARow_ > o_.maxSkipped) {
      // Every rank sees the same (reduced) loss and gradient norm, so all
      // abort here together; rank 0 says why, once.
      if (lead_)
        error = "aborting: " + std::to_string(skippedInARow_) +
                " consecutive steps had a non-finite loss or gradient (last loss " +
                std::to_string(stats.loss) + ")";
      return false;
    }
  } else {
    skippedInARow_ = 0;
  }
  lastExposedComm_ = stats.exposedCommSeconds;
  double tokensPerStep = static_cast<double>(c.global_batch_size() * c.seq_length());
  log_->step(it, stats, tokensPerStep / seconds, now() - start_, skippedTotal_,
             it % o_.logInterval == 0 || it == iters_);
  bool evalNow = o_.evalInterval ? (it % o_.evalInterval == 0 || it == iters_) : it == iters_;
  if (evalNow && data_.valid().numSamples() > 0) {
    if (profiled_)
      profiled_->profile(CudaBackend::Profiling::Pause);
    if (!evaluate(it, Split::Valid, error))
      return false;
    if (profiled_)
      profiled_->profile(CudaBackend::Profiling::Resume);
  }
  return finishSave(/*wait=*/false, error) &&
         (o_.saveInterval == 0 || it % o_.saveInterval != 0 || save(it, error));
}

bool TrainingRun::finish(std::string &error) {
  // As Megatron: the test split, when there is one, after the last step.
  if (data_.test().numSamples() > 0 && !stoppedBy_ && !evaluate(iters_, Split::Test, error))
    return false;
  if (!o_.save.empty() && (o_.saveInterval == 0 || iters_ % o_.saveInterval != 0) &&
      !save(iters_, error))
    return false;
  if (!finishSave(/*wait=*/true, error) || !log_->finish(error) ||
      (recorder_->enabled() && !recorder_->end(trainer_, error)))
    return false;
  if (o_.profile && !reportProfile(error))
    return false;
  if (o_.measureArena && lead_)
    printArena();
  return o_.timeline.empty() || writeTimeline(error);
}

RunPosition TrainingRun::position(int64_t it) {
  return RunPosition{it, data_.train().position(), data_.valid().position(),
                     data_.train().numSamples()};
}

void TrainingRun::reportSave(double writeSeconds) {
  if (!lead_ || saver_->published() < 0)
    return;
  if (o_.asyncSave)
    std::printf("saved checkpoint %s/iter_%07lld (rank 0 wrote %.1f MB in the background; "
                "training held %.2f s for the copy)\n",
                o_.save.c_str(), static_cast<long long>(saver_->published()), saver_->bytes() / 1e6,
                saver_->holdSeconds());
  else
    std::printf("saved checkpoint %s/iter_%07lld in %.2f s (rank 0 wrote %.1f MB)\n",
                o_.save.c_str(), static_cast<long long>(saver_->published()), writeSeconds,
                saver_->bytes() / 1e6);
  std::fflush(stdout);
}

bool TrainingRun::save(int64_t it, std::string &error) {
  double t0 = now();
  int64_t before = saver_->published();
  if (!saver_->save(trainer_, comm_, position(it), error))
    return false;
  if (saver_->published() != before)
    reportSave(now() - t0);
  return true;
}

bool TrainingRun::finishSave(bool wait, std::string &error) {
  if (!saver_->pending())
    return true;
  if (!saver_->finish(comm_, wait, error))
    return false;
  if (!saver_->pending())
    reportSave(0);
  return true;
}

} // namespace mt
