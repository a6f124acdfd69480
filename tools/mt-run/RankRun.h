//===- RankRun.h - one rank's training run ----------------------*- C++ -*-===//
//
// Loads the rank's part of the plan, reads the data, resumes from a
// checkpoint if asked, runs every step with its logging, evaluation and
// saves, then the end-of-run reports. Rank 0 logs, records and prints.
//
//===----------------------------------------------------------------------===//
#ifndef MT_TOOLS_MTRUN_RANKRUN_H
#define MT_TOOLS_MTRUN_RANKRUN_H

#include "Options.h"

#include "mt/Runtime/Checkpointing.h"
#include "mt/Runtime/RunRecorder.h"
#include "mt/Runtime/Trainer.h"
#include "mt/Runtime/TrainingData.h"
#include "mt/Runtime/TrainingLog.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mtrun {

/// What the process does when a rank must die (--inject-fault).
using DieFn = std::function<void(mt::Communicator &)>;

class RankRun {
public:
  RankRun(const Options &o, const mt::plan::Plan &plan, mt::Communicator &comm, DieFn die)
      : o_(o), plan_(plan), comm_(comm), die_(std::move(die)), rank_(comm.rank()),
        lead_(comm.rank() == 0) {}

  /// The exit code: 0, or 1 after printing why (once, by the rank that failed).
  int run();

private:
  bool prepare(std::string &error);
  bool openData(std::string &error);
  bool openT5(std::string &error);
  bool resume(std::string &error);
  bool train(std::string &error);
  /// --eval-only: one evaluation of the parameters as loaded.
  bool evaluateOnly(std::string &error);
  /// One step's bookkeeping after it ran: skips, the log line, evaluation, saves.
  bool afterStep(int64_t it, const mt::StepStats &stats, double seconds, std::string &error);
  bool finish(std::string &error);
  /// After step `it`: whether SIGTERM or SIGINT reached any rank (all ranks
  /// agree, so all stop after the same step).
  bool stopAgreed(int64_t it, bool &stop, std::string &error);
  /// The exit code of a run stopped by a signal, after saying so.
  int reportStop();

  bool save(int64_t it, std::string &error);
  /// A background save is published as soon as every rank has written it.
  bool finishSave(bool wait, std::string &error);
  void reportSave(double writeSeconds);
  mt::RunPosition position(int64_t it);

  bool reportProfile(std::string &error);
  void printArena();
  bool writeTimeline(std::string &error);

  const Options &o_;
  const mt::plan::Plan &plan_;
  mt::Communicator &comm_;
  DieFn die_;
  int rank_;
  bool lead_;
  mt::Trainer trainer_;
  mt::TrainingData data_;
  int64_t iters_ = 0, first_ = 1;
  std::string loadedFrom_;
  std::vector<std::string> notes_;
  std::unique_ptr<mt::CheckpointSaver> saver_;
  std::unique_ptr<mt::RunRecorder> recorder_;
  std::unique_ptr<mt::TrainingLog> log_;
  mt::BatchSource *trainSource_ = nullptr;
  mt::CudaBackend *profiled_ = nullptr; // --profile on rank 0
  int64_t profiledSteps_ = 0, skippedInARow_ = 0, skippedTotal_ = 0;
  double start_ = 0;
  int stoppedBy_ = 0;           // the signal the run stopped on, or 0
  double lastExposedComm_ = -1; // seconds, the last step's; -1 on one rank
};

} // namespace mtrun

#endif // MT_TOOLS_MTRUN_RANKRUN_H
