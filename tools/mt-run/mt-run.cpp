//===- mt-run.cpp - trains a model from an mtc plan ------------------------===//
//
// Reads and checks the plan, then runs its ranks: one process per rank
// under MPI, or one thread per rank (RankRun each).
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Comm/MpiTransport.h"
#include "mt/Runtime/Comm/ThreadTransport.h"
#include "mt/Runtime/Training/StopRequest.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

using namespace mtrun;

namespace {

/// How the rank threads of this process end.
struct RankThreads {
  std::mutex mutex;
  std::condition_variable changed;
  int64_t finished = 0, dead = 0;
} rankThreads;

/// The injected fault: a process under MPI is killed outright; a rank thread
/// stops answering forever (a thread cannot be killed alone), so its peers
/// see what they would see of a dead process.
void dieNow(mt::Communicator &comm) {
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

/// One rank's run; its error printed (once, by the rank that failed).
int runRank(const Options &o, const mt::plan::Plan &plan, mt::Communicator &comm) {
  mt::TrainingRun run(o, plan, comm, dieNow);
  int rc = run.run();
  if (rc == 1 && !run.error().empty())
    fail(run.error());
  return rc;
}

/// --report-kernels: the run loads the stand-in runtime beside mt-run
/// (libmt-cuda-standin.so), which counts what the plan launches and runs
/// nothing; two steps (the first is left out of the report) unless
/// --train-iters says otherwise.
void countWithTheStandIn(Options &o, const char *argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(argv0, (void *)&countWithTheStandIn);
  llvm::SmallString<256> standIn(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(standIn, "lib", "libmt-cuda-standin.so");
  setenv("MT_CUDA_RUNTIME", standIn.c_str(), 1);
  if (o.trainIters == 0)
    o.trainIters = 2;
  std::printf("--report-kernels: the stand-in CUDA runtime counts the plan's launches; nothing "
              "runs, so the losses below mean nothing\n");
}

/// Checks what the options ask of this plan; false after printing why.
bool checkAgainstPlan(const Options &o, const mt::plan::Plan &plan) {
  bool anySplit = false;
  for (const mt::DataBlend &b : o.data.splits)
    anySplit = anySplit || !b.empty();
  if (o.data.blend.empty() && !anySplit)
    return fail("no training data: pass --data PATH (or --data-path W1 PATH1 W2 PATH2 ...)"),
           false;
  if (o.reportKernels != mt::KnownGpu::None && !mt::planTargetsCuda(plan))
    return fail("--report-kernels counts a CUDA plan's kernels; this plan is for the CPU "
                "(compile it with --target=cuda)"),
           false;
  if (o.save.empty() && (o.saveInterval > 0 || o.saveKeep > 0 || o.asyncSave))
    return fail("--save-interval, --save-keep and --async-save need --save DIR"), false;
  if (o.profile && !mt::planTargetsCuda(plan))
    return fail("--profile times GPU kernels; this plan is for the CPU (compile it with "
                "--target=cuda)"),
           false;
  if (!o.timeline.empty() && plan.stages_size() < 2)
    return fail("--timeline draws pipeline schedules; this plan has one stage (compile with "
                "--pp)"),
           false;
  return true;
}

/// One rank of the plan in this process, under mpirun / srun.
int runUnderMpi(const Options &o, const mt::plan::Plan &plan, int64_t ranks) {
  std::string error;
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
  // One process per GPU: the process's index on its machine picks one of
  // the GPUs it sees (the CUDA runtime takes it modulo their number, so a
  // launcher that gives each task one GPU works too) unless MT_CUDA_DEVICE
  // says which.
  if (int local = mt::MpiTransport::localRank(); local >= 0)
    setenv("MT_CUDA_LOCAL_RANK", std::to_string(local).c_str(), 1);
  mt::Communicator comm(*mpi, o.commTimeout);
  int rc = runRank(o, plan, comm);
  if (rc == 1) // an error; a run stopped by SIGTERM/SIGINT exits with 128 + the signal
    mpi->fail("exiting after the error above");
  return rc;
}

/// Every rank of the plan as a thread of this process.
int runAsThreads(const Options &o, const mt::plan::Plan &plan, int64_t ranks) {
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
    rankThreads.changed.wait(lock,
                             [&] { return rankThreads.finished + rankThreads.dead == ranks; });
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

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parseOptions(argc, argv, o))
    return 1;
  std::string error;
  mt::plan::Plan plan;
  if (!mt::readPlanFile(o.plan, plan, error))
    return fail(error);
  if (o.dump) {
    std::fputs(mt::dumpPlan(plan).c_str(), stdout);
    return 0;
  }
  if (!checkAgainstPlan(o, plan))
    return 1;
  if (o.reportKernels != mt::KnownGpu::None)
    countWithTheStandIn(o, argv[0]);
  int64_t ranks = mt::planMesh(plan.config()).numRanks();
  mt::installStopHandlers();
  return mt::MpiTransport::launchedByMpi() ? runUnderMpi(o, plan, ranks)
                                           : runAsThreads(o, plan, ranks);
}
