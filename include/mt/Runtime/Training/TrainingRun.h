//===- TrainingRun.h - one rank's training run ------------------*- C++ -*-===//
//
// Loads the rank's part of the plan, reads the data the model takes (GPT,
// BERT or T5 samples, as the plan's architecture says), resumes from a
// checkpoint if asked, runs every step with its logging, evaluation and
// saves, agrees with the other ranks on stopping, then the end-of-run
// reports. Rank 0 logs, records and prints. mt-run parses the command line
// and starts the ranks; everything else is here.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_TRAININGRUN_H
#define MT_RUNTIME_TRAINING_TRAININGRUN_H

#include "mt/Runtime/Code/KernelProfile.h"
#include "mt/Runtime/Training/Checkpointing.h"
#include "mt/Runtime/Training/RunRecorder.h"
#include "mt/Runtime/Training/Trainer.h"
#include "mt/Runtime/Training/TrainingData.h"
#include "mt/Runtime/Training/TrainingLog.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mt {

/// What a run is asked to do (mt-run's flags; docs/tools.md).
struct TrainingRunOptions {
  /// --data, --data-path, --train-data-path ... (TrainingData.h).
  DataSources data;
  /// Where index caches go (empty: next to each indexed dataset).
  std::string dataCachePath;
  std::string logDir, metricsFile, record, timeline;
  std::string vocabFile;       // BERT's WordPiece vocabulary
  std::string tokenizerModel;  // T5's SentencePiece model
  int64_t vocabExtraIds = 100; // T5's sentinels, after the SentencePiece vocabulary
  std::string save, load;
  int64_t saveInterval = 0, saveKeep = 0;
  bool asyncSave = false;
  bool measureArena = false;
  bool overlapGradReduce = true;
  CollectiveOverlap overlapTpComm = CollectiveOverlap::Auto;
  /// --collectives: where the collectives of compiled code (and the
  /// runtime's sums, gathers and pipeline messages) run.
  enum class Collectives { Host, Nccl, Auto };
  Collectives collectives = Collectives::Host;
  bool profile = false;
  double peakBandwidth = 0, peakTflops = 0; // 0: the device's known peaks
  /// --report-kernels: the run counts on the stand-in runtime (mt-run
  /// loads it) and the report gives floors on this GPU.
  KnownGpu reportKernels = KnownGpu::None;
  bool evalOnly = false, evalItersGiven = false;
  int64_t trainIters = 0, evalInterval = 0, evalIters = 4, logInterval = 1, maxSkipped = 10;
  std::string split = "949,50,1";
  // --inject-fault=kill:RANK:STEP (tests): that rank dies at that step.
  int64_t killRank = -1, killStep = 0;
  // --inject-fault=sigterm:RANK:STEP (tests): that rank raises SIGTERM after step STEP.
  int64_t signalRank = -1, signalStep = 0;
};

class TrainingRun {
public:
  /// What the process does when a rank must die (--inject-fault).
  using DieFn = std::function<void(Communicator &)>;

  TrainingRun(const TrainingRunOptions &o, const plan::Plan &plan, Communicator &comm, DieFn die)
      : o_(o), plan_(plan), comm_(comm), die_(std::move(die)), rank_(comm.rank()),
        lead_(comm.rank() == 0) {}

  /// The exit code: 0; 1 after an error, which error() then holds (empty
  /// when another rank failed and says why); 128 + the signal of a run
  /// stopped by SIGTERM or SIGINT, after saving.
  int run();
  const std::string &error() const { return error_; }

private:
  bool prepare(std::string &error);
  /// --collectives: sets `nccl` when the run's collectives go through NCCL
  /// (auto: a CUDA plan whose ranks are processes, each with a GPU of its
  /// own, where every rank loads NCCL; all ranks agree).
  bool chooseCollectives(const NcclLibrary *&nccl, std::string &error);
  /// The data the plan's model takes (ModelArchitecture::dataset).
  bool openData(std::string &error);
  bool openBert(std::string &error);
  bool openT5(std::string &error);
  bool resume(std::string &error);
  bool train(std::string &error);
  /// --eval-only: one evaluation of the parameters as loaded.
  bool evaluateOnly(std::string &error);
  /// The validation (or test) loss after step `it`: of the blend, then of
  /// each of its datasets.
  bool evaluate(int64_t it, Split split, std::string &error);
  /// The samples each split serves over the run.
  SplitTargets splitTargets() const;
  /// One step's bookkeeping after it ran: skips, the log line, evaluation, saves.
  bool afterStep(int64_t it, const StepStats &stats, double seconds, std::string &error);
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
  RunPosition position(int64_t it);

  bool reportProfile(std::string &error);
  void printArena();
  bool writeTimeline(std::string &error);

  const TrainingRunOptions &o_;
  const plan::Plan &plan_;
  Communicator &comm_;
  DieFn die_;
  int rank_;
  bool lead_;
  std::string error_;
  Trainer trainer_;
  TrainingData data_;
  int64_t iters_ = 0, first_ = 1;
  std::string loadedFrom_;
  std::vector<std::string> notes_;
  std::unique_ptr<CheckpointSaver> saver_;
  std::unique_ptr<RunRecorder> recorder_;
  std::unique_ptr<TrainingLog> log_;
  BatchSource *trainSource_ = nullptr;
  CudaBackend *profiled_ = nullptr; // --profile on rank 0
  int64_t profiledSteps_ = 0, skippedInARow_ = 0, skippedTotal_ = 0;
  double start_ = 0;
  int stoppedBy_ = 0;           // the signal the run stopped on, or 0
  double lastExposedComm_ = -1; // seconds, the last step's; -1 on one rank
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TRAININGRUN_H
