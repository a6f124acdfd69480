//===- mt-run.cpp - trains a model from an mtc plan ------------------------===//
#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Checkpointing.h"
#include "mt/Runtime/MpiTransport.h"
#include "mt/Runtime/RunRecorder.h"
#include "mt/Runtime/ThreadTransport.h"
#include "mt/Runtime/Timeline.h"
#include "mt/Runtime/KernelProfile.h"
#include "mt/Runtime/Trainer.h"
#include "mt/Runtime/TrainingData.h"
#include "mt/Runtime/TrainingLog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Options {
  std::string plan, data, logDir, record, timeline;
  std::string save, load;
  int64_t saveInterval = 0, saveKeep = 0;
  bool asyncSave = false;
  bool measureArena = false;
  bool profile = false;
  double peakBandwidth = 0, peakTflops = 0; // 0: the device's known peaks
  bool dump = false;
  int64_t trainIters = 0, evalInterval = 0, evalIters = 4, logInterval = 1, maxSkipped = 10;
  std::string split = "949,50,1";
  double commTimeout = 300;
  // --inject-fault=kill:RANK:STEP (tests): that rank dies at that step.
  int64_t killRank = -1, killStep = 0;
};

void usage() {
  std::fprintf(stderr,
               "usage: mt-run PLAN --data PATH [options]\n"
               "       mt-run PLAN --dump\n"
               "  --data PATH           an indexed dataset prefix (PATH.bin/.idx from mt-data or\n"
               "                        Megatron), JSON lines (*.jsonl, \"text\" field), a text file,\n"
               "                        or whitespace-separated ids, one document per line (*.tokens)\n"
               "  --split A,B,C         train/valid/test weights over the data (949,50,1)\n"
               "  --train-iters N       stop after step N (the plan's schedule, learning rates and\n"
               "                        data order unchanged: a later --load goes on from there)\n"
               "  --save DIR            save checkpoints into DIR (at the end of the run and every\n"
               "                        --save-interval steps); each rank writes its own file\n"
               "  --save-interval N     also save every N steps (0: only at the end)\n"
               "  --save-keep N         keep the newest N checkpoints in DIR (0: all)\n"
               "  --async-save          write checkpoints in the background: training waits only\n"
               "                        for a copy of the state (which takes its memory again)\n"
               "  --load PATH           resume from a checkpoint: PATH/iter_* or a save directory\n"
               "                        (its newest complete one); any layout loads into any other\n"
               "  --eval-interval N     validation loss and perplexity every N steps (0: at the end)\n"
               "  --eval-iters N        validation micro-batches per evaluation (4)\n"
               "  --log-interval N      print every N steps (1)\n"
               "  --max-skipped N       abort after N steps skipped for non-finite values (10)\n"
               "  --log-dir DIR         write train.log and loss.svg there\n"
               "  --record DIR          save initial parameters, batches, first gradients, losses\n"
               "                        and final parameters, to replay the run elsewhere\n"
               "  --timeline DIR        pipelined plans: write the last step's schedule as it ran\n"
               "                        (timeline.txt, timeline.svg)\n"
               "  --measure-arena       print how far each function writes into rank 0's arena\n"
               "                        against the plan (fills and scans it around every call)\n"
               "  --profile             CUDA plans: time every kernel and GEMM after the first\n"
               "                        step and print them per step, kernels grouped by op with\n"
               "                        the bandwidth they reach, GEMMs by shape with TFLOP/s\n"
               "  --peak-bandwidth GB/s --peak-tflops T\n"
               "                        the device's peaks for --profile's percentages (known\n"
               "                        for A100, H100, H200)\n"
               "  --comm-timeout SEC    report a rank that waits longer on a peer and exit (300)\n"
               "  --inject-fault=kill:RANK:STEP\n"
               "                        testing: rank RANK dies at step STEP\n"
               "Plans for several ranks start one thread per rank, or run one rank per\n"
               "process under mpirun -np N / srun.\n");
}

bool parseInt(const char *text, int64_t &out) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "mt-run: error: %s\n", message.c_str());
  return 1;
}


/// How the rank threads of this process end.
struct RankThreads {
  std::mutex mutex;
  std::condition_variable changed;
  int64_t finished = 0, dead = 0;
} rankThreads;

/// The injected fault: a process under MPI is killed outright; a rank thread
/// stops answering forever (a thread cannot be killed alone), so its peers
/// see what they would see of a dead process.
[[noreturn]] void dieNow(mt::Communicator &comm) {
  if (comm.transport().name() == "mpi")
    std::raise(SIGKILL);
  {
    std::lock_guard<std::mutex> lock(rankThreads.mutex);
    ++rankThreads.dead;
  }
  rankThreads.changed.notify_all();
  for (;;)
    std::this_thread::sleep_for(std::chrono::hours(1));
}

/// --profile's report, printed by rank 0 once every rank of the process is
/// done (their kernels are counted too).
bool reportProfile(const Options &o, const mt::plan::Plan &plan, mt::Trainer &trainer,
                   mt::Communicator &comm, int64_t steps, std::string &error) {
  if (comm.size() > 1) {
    mt::Group world{{}, "world"};
    for (int64_t r = 0; r < comm.size(); ++r)
      world.ranks.push_back(r);
    int64_t done = 1;
    if (!comm.allReduce(world, &done, 1, mt::ElementType::I64, mt::ReduceOp::Sum,
                        "the end of --profile", error))
      return false;
  }
  mt::CudaBackend *gpu = trainer.gpu();
  if (comm.rank() != 0 || !gpu)
    return true;
  gpu->profile(mt::CudaBackend::Profiling::Pause);
  mt::DevicePeaks peaks = mt::peaksOf(gpu->device());
  if (o.peakBandwidth > 0)
    peaks.bandwidthGBs = o.peakBandwidth;
  if (o.peakTflops > 0)
    peaks.tflops16 = peaks.tflops32 = o.peakTflops;
  std::fputs(("\n" + mt::profileReport(gpu->profileEntries(), plan, steps, gpu->device(), peaks))
                 .c_str(),
             stdout);
  return true;
}

/// Trains on one rank: loads its part of the plan, reads the data, runs
/// every step. Rank 0 logs and records.
int runRank(const Options &o, const mt::plan::Plan &plan, mt::Communicator &comm) {
  std::string error;
  int rank = comm.rank();
  bool lead = rank == 0; // logs, records and prints progress
  auto rankFail = [&](const std::string &message) {
    if (message.empty())
      return 1; // another rank failed and said why
    return fail(comm.size() > 1 ? "rank " + std::to_string(rank) + ": " + message : message);
  };
  mt::Trainer trainer;
  if (!trainer.load(plan, rank, &comm, error))
    return rankFail(error);
  if (o.measureArena)
    trainer.measureArena();
  const mt::plan::Config &c = trainer.config();
  // --train-iters stops the run early; the data are laid out for the whole
  // schedule either way, so a resumed run continues the same order.
  int64_t iters = o.trainIters ? o.trainIters : c.train_iters();

  mt::TrainingData data;
  if (!data.open(o.data, c.vocab_size(), error) ||
      !data.build(o.split, c.seq_length(), c.seed(),
                  std::max(iters, c.train_iters()) * c.global_batch_size(), error))
    return rankFail(error);
  mt::SplitSource &train = data.train(), &valid = data.valid();

  int64_t first = 1; // the first step this run takes
  std::string loadedFrom;
  std::vector<std::string> notes;
  if (!o.load.empty()) {
    mt::RunPosition at;
    if (!mt::loadCheckpoint(trainer, comm, o.load, loadedFrom, at, notes, error))
      return rankFail(error);
    if (at.trainSplitSamples != train.numSamples())
      notes.push_back("the training split holds " + std::to_string(train.numSamples()) +
                      " samples, the checkpoint's run had " +
                      std::to_string(at.trainSplitSamples) +
                      " (other data, --split, sequence length or train iterations): the data "
                      "order does not continue exactly");
    train.seek(at.trainSamples);
    valid.seek(at.validSamples);
    first = at.iteration + 1;
    if (first > iters)
      return rankFail("checkpoint '" + loadedFrom + "' is at iteration " +
                      std::to_string(at.iteration) + ", the run stops at " +
                      std::to_string(iters) + ": nothing to do (raise --train-iters or compile "
                      "a plan with more)");
  }
  auto position = [&](int64_t it) {
    return mt::RunPosition{it, train.position(), valid.position(), train.numSamples()};
  };
  mt::CheckpointSaver saver(o.save, o.saveKeep, o.asyncSave);
  auto reportSave = [&](double writeSeconds) {
    if (!lead || saver.published() < 0)
      return;
    if (o.asyncSave)
      std::printf("saved checkpoint %s/iter_%07lld (rank 0 wrote %.1f MB in the background; "
                  "training held %.2f s for the copy)\n",
                  o.save.c_str(), static_cast<long long>(saver.published()), saver.bytes() / 1e6,
                  saver.holdSeconds());
    else
      std::printf("saved checkpoint %s/iter_%07lld in %.2f s (rank 0 wrote %.1f MB)\n",
                  o.save.c_str(), static_cast<long long>(saver.published()), writeSeconds,
                  saver.bytes() / 1e6);
    std::fflush(stdout);
  };
  auto save = [&](int64_t it) -> bool {
    auto t0 = std::chrono::steady_clock::now();
    int64_t before = saver.published();
    if (!saver.save(trainer, comm, position(it), error))
      return false;
    if (saver.published() != before)
      reportSave(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return true;
  };
  // A background save is published as soon as every rank has written it.
  auto finishSave = [&](bool wait) -> bool {
    if (!saver.pending())
      return true;
    if (!saver.finish(comm, wait, error))
      return false;
    if (!saver.pending())
      reportSave(0);
    return true;
  };

  mt::RunRecorder recorder(o.record, lead);
  if (recorder.enabled() && !recorder.begin(trainer, error))
    return rankFail(error);
  mt::BatchSource &trainSource = recorder.enabled() ? recorder.wrap(train) : train;

  mt::TrainingLog log(lead ? o.logDir : std::string(), isatty(fileno(stdout)), iters, lead);
  if (!log.open(error))
    return rankFail(error);
  log.header(c, train.numSamples(), valid.numSamples(), trainer.device());
  if (lead && !loadedFrom.empty()) {
    std::printf("resumed from %s at iteration %lld\n", loadedFrom.c_str(),
                static_cast<long long>(first - 1));
    for (const std::string &note : notes)
      std::printf("  note: %s\n", note.c_str());
    std::fflush(stdout);
  }
  auto start = std::chrono::steady_clock::now();
  int64_t skippedInARow = 0, skippedTotal = 0;
  double tokensPerStep = static_cast<double>(c.global_batch_size() * c.seq_length());
  // --profile: rank 0 starts the timing after the first step (cuBLAS and the
  // driver settle in it) unless there is only one, and pauses it around
  // evaluations.
  mt::CudaBackend *profiled = o.profile && lead ? trainer.gpu() : nullptr;
  int64_t profiledSteps = 0;
  if (profiled && iters == first)
    profiled->profile(mt::CudaBackend::Profiling::Start);
  for (int64_t it = first; it <= iters; ++it) {
    if (rank == o.killRank && it == o.killStep)
      dieNow(comm);
    if (profiled && it == first + 1)
      profiled->profile(mt::CudaBackend::Profiling::Start);
    if (profiled && (it > first || iters == first))
      ++profiledSteps;
    auto t0 = std::chrono::steady_clock::now();
    mt::StepStats stats;
    if (!trainer.step(it, trainSource, stats, error))
      return rankFail("iteration " + std::to_string(it) + ": " + error);
    if (recorder.enabled() && !recorder.step(trainer, it, stats, error))
      return rankFail(error);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stats.overflow) {
      // fp16 overflow: the loss scale was lowered; expected while it settles.
      ++skippedTotal;
    } else if (stats.skipped) {
      ++skippedTotal;
      if (++skippedInARow > o.maxSkipped)
        return rankFail("aborting: " + std::to_string(skippedInARow) +
                    " consecutive steps had a non-finite loss or gradient (last loss " +
                    std::to_string(stats.loss) + ")");
    } else {
      skippedInARow = 0;
    }
    log.step(it, stats, tokensPerStep / seconds, elapsed, skippedTotal, it % o.logInterval == 0 || it == iters);
    bool evalNow = o.evalInterval ? (it % o.evalInterval == 0 || it == iters) : it == iters;
    if (evalNow && valid.numSamples() > 0) {
      if (profiled)
        profiled->profile(mt::CudaBackend::Profiling::Pause);
      double loss = 0;
      if (!trainer.evaluate(valid, o.evalIters, loss, error))
        return rankFail("evaluation: " + error);
      log.validation(it, loss);
      if (profiled)
        profiled->profile(mt::CudaBackend::Profiling::Resume);
    }
    if (!finishSave(/*wait=*/false))
      return rankFail(error);
    if (o.saveInterval > 0 && it % o.saveInterval == 0 && !save(it))
      return rankFail(error);
  }
  if (!o.save.empty() && (o.saveInterval == 0 || iters % o.saveInterval != 0) && !save(iters))
    return rankFail(error);
  if (!finishSave(/*wait=*/true))
    return rankFail(error);
  if (!log.finish(error) || (recorder.enabled() && !recorder.end(trainer, error)))
    return rankFail(error);
  if (o.profile && !reportProfile(o, plan, trainer, comm, profiledSteps, error))
    return rankFail(error);
  if (o.measureArena && lead) {
    std::printf("arena of rank 0: %lld bytes planned\n",
                static_cast<long long>(trainer.arenaBytes()));
    for (const mt::plan::Function &f : plan.functions()) {
      auto it = trainer.arenaHighWaterMarks().find(f.name());
      if (it == trainer.arenaHighWaterMarks().end())
        continue; // not this rank's, or not called
      std::printf("  %s: planned %lld, written up to %lld\n", f.name().c_str(),
                  static_cast<long long>(f.arena_bytes()), static_cast<long long>(it->second));
    }
  }
  if (!o.timeline.empty()) {
    std::vector<mt::TimelineEntry> timeline;
    if (!trainer.gatherTimeline(timeline, error))
      return rankFail(error);
    if (lead) {
      int64_t stages = trainer.mesh().sizes()[0];
      std::string title = "pipeline schedule of step " + std::to_string(iters) + ": " +
                          std::to_string(stages) + " stages, " + c.parallel().schedule();
      if (mkdir(o.timeline.c_str(), 0755) != 0 && errno != EEXIST)
        return rankFail("cannot create '" + o.timeline + "'");
      for (const auto &[file, text] :
           {std::pair<std::string, std::string>{"timeline.txt", mt::timelineText(timeline, stages)},
            {"timeline.svg", mt::timelineSvg(timeline, stages, title)}}) {
        std::FILE *f = std::fopen((o.timeline + "/" + file).c_str(), "w");
        if (!f || std::fputs(text.c_str(), f) < 0)
          return rankFail("cannot write '" + o.timeline + "/" + file + "'");
        std::fclose(f);
      }
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // --flag=value is the same as --flag value.
    std::string inlineValue;
    bool hasInline = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      inlineValue = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      hasInline = true;
    }
    auto value = [&](const char *flag) -> const char * {
      if (hasInline)
        return inlineValue.c_str();
      if (i + 1 >= argc) {
        fail(std::string(flag) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    auto intValue = [&](const char *flag, int64_t &out, int64_t min) {
      const char *v = value(flag);
      if (!parseInt(v, out) || out < min) {
        fail(std::string(flag) + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
        std::exit(1);
      }
    };
    if (a == "--data") o.data = value("--data");
    else if (a == "--dump") o.dump = true;
    else if (a == "--measure-arena") o.measureArena = true;
    else if (a == "--profile") o.profile = true;
    else if (a == "--peak-bandwidth" || a == "--peak-tflops") {
      const char *v = value(a.c_str());
      char *end = nullptr;
      double peak = std::strtod(v, &end);
      if (!*v || *end || !(peak > 0))
        return fail(a + " needs a positive number, got '" + v + "'");
      (a == "--peak-bandwidth" ? o.peakBandwidth : o.peakTflops) = peak;
    }
    else if (a == "--split") o.split = value("--split");
    else if (a == "--log-dir") o.logDir = value("--log-dir");
    else if (a == "--record") o.record = value("--record");
    else if (a == "--timeline") o.timeline = value("--timeline");
    else if (a == "--save") o.save = value("--save");
    else if (a == "--load") o.load = value("--load");
    else if (a == "--save-interval") intValue("--save-interval", o.saveInterval, 0);
    else if (a == "--save-keep") intValue("--save-keep", o.saveKeep, 0);
    else if (a == "--async-save") o.asyncSave = true;
    else if (a == "--train-iters") intValue("--train-iters", o.trainIters, 1);
    else if (a == "--eval-interval") intValue("--eval-interval", o.evalInterval, 0);
    else if (a == "--eval-iters") intValue("--eval-iters", o.evalIters, 1);
    else if (a == "--log-interval") intValue("--log-interval", o.logInterval, 1);
    else if (a == "--max-skipped") intValue("--max-skipped", o.maxSkipped, 0);
    else if (a == "--comm-timeout") {
      const char *v = value("--comm-timeout");
      char *end = nullptr;
      o.commTimeout = std::strtod(v, &end);
      if (!*v || *end || !(o.commTimeout > 0))
        return fail(std::string("--comm-timeout needs a positive number of seconds, got '") + v + "'");
    } else if (a == "--inject-fault") {
      std::string v = value("--inject-fault");
      long long r = -1, st = 0;
      char tail = 0;
      if (std::sscanf(v.c_str(), "kill:%lld:%lld%c", &r, &st, &tail) != 2 || r < 0 || st < 1)
        return fail("--inject-fault needs kill:RANK:STEP, got '" + v + "'");
      o.killRank = r;
      o.killStep = st;
    }
    else if (a == "-h" || a == "--help") { usage(); return 0; }
    else if (!a.empty() && a[0] == '-') { usage(); return fail("unknown option '" + a + "'"); }
    else if (o.plan.empty()) o.plan = a;
    else { usage(); return fail("unexpected argument '" + a + "'"); }
  }
  if (o.plan.empty()) {
    usage();
    return fail("no plan given");
  }
  std::string error;
  mt::plan::Plan plan;
  if (!mt::readPlanFile(o.plan, plan, error))
    return fail(error);
  if (o.dump) {
    std::fputs(mt::dumpPlan(plan).c_str(), stdout);
    return 0;
  }
  if (o.data.empty())
    return fail("no training data: pass --data PATH");
  if (o.save.empty() && (o.saveInterval > 0 || o.saveKeep > 0 || o.asyncSave))
    return fail("--save-interval, --save-keep and --async-save need --save DIR");
  if (o.profile && !mt::planTargetsCuda(plan))
    return fail("--profile times GPU kernels; this plan is for the CPU (compile it with "
                "--target=cuda)");
  if (!o.timeline.empty() && plan.stages_size() < 2)
    return fail("--timeline draws pipeline schedules; this plan has one stage (compile with --pp)");
  int64_t ranks = mt::planMesh(plan.config()).numRanks();

  if (mt::MpiTransport::launchedByMpi()) {
    auto mpi = mt::MpiTransport::create(error);
    if (!mpi)
      return fail(error);
    if (mpi->size() != ranks) {
      std::string message = "the plan needs " + std::to_string(ranks) + " ranks but mpirun started " +
                            std::to_string(mpi->size()) + " processes; use mpirun -np " +
                            std::to_string(ranks);
      if (mpi->rank() == 0)
        fail(message);
      return 1;
    }
    mt::Communicator comm(*mpi, o.commTimeout);
    int rc = runRank(o, plan, comm);
    if (rc != 0)
      mpi->fail("exiting after the error above");
    return rc;
  }

  // One thread per rank in this process.
  mt::ThreadWorld world(static_cast<int>(ranks));
  std::vector<std::unique_ptr<mt::ThreadTransport>> transports;
  std::vector<std::unique_ptr<mt::Communicator>> comms;
  for (int r = 0; r < ranks; ++r) {
    transports.push_back(std::make_unique<mt::ThreadTransport>(world, r));
    comms.push_back(std::make_unique<mt::Communicator>(*transports.back(), o.commTimeout));
  }
  std::vector<int> codes(static_cast<size_t>(ranks), 0);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      int rc = runRank(o, plan, *comms[r]);
      if (rc != 0)
        transports[r]->fail("rank " + std::to_string(r) + " stopped with an error");
      {
        std::lock_guard<std::mutex> lock(rankThreads.mutex);
        codes[r] = rc;
        ++rankThreads.finished;
      }
      rankThreads.changed.notify_all();
    });
  {
    // A rank that died without a word (an injected fault) never finishes:
    // once the others are done, exit without waiting for it.
    std::unique_lock<std::mutex> lock(rankThreads.mutex);
    rankThreads.changed.wait(lock, [&] { return rankThreads.finished + rankThreads.dead == ranks; });
    if (rankThreads.dead > 0) {
      std::fprintf(stderr, "mt-run: error: %lld rank(s) died during the run\n",
                   static_cast<long long>(rankThreads.dead));
      std::fflush(stdout);
      std::_Exit(1);
    }
  }
  for (std::thread &t : threads)
    t.join();
  for (int rc : codes)
    if (rc != 0)
      return rc;
  return 0;
}
