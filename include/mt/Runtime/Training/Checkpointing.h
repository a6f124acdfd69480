//===- Checkpointing.h - saves and restores a trainer's state --*- C++ -*-===//
//
// mt-run's side of checkpoints (mt/Checkpoint): every rank writes the pieces
// it saves from its trainer's buffers into its own file, in parallel (in the
// background if asked); rank 0 writes the manifest with what a resume needs
// and publishes the save. A
// load fills each rank's buffers, whatever layout saved them, and restores
// the optimizer's step, the loss scaler and the data order's position.
// Both are collective: every rank calls them, and a failure on one rank is
// an error on all (no rank is left waiting).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_CHECKPOINTING_H
#define MT_RUNTIME_TRAINING_CHECKPOINTING_H

#include "mt/Checkpoint/CheckpointWriter.h"
#include "mt/Plan/PlanFile.h"

#include <atomic>
#include <thread>

#include <string>
#include <vector>

namespace mt {

class Communicator;
class Trainer;

/// Where a run stands, besides its tensors.
struct RunPosition {
  int64_t iteration = 0;                      // steps completed
  int64_t trainSamples = 0, validSamples = 0; // samples the splits have served
  int64_t trainSplitSamples = 0;              // the training split's size
};

/// Saves checkpoints into one directory, keeping the newest `keep` (0:
/// all). In the background (Megatron's --async-save), a save copies this
/// rank's pieces aside and a thread of its own writes them while training
/// goes on; the checkpoint is published once every rank's file is written.
class CheckpointSaver {
public:
  CheckpointSaver(std::string dir, int64_t keep, bool background);
  ~CheckpointSaver();
  CheckpointSaver(const CheckpointSaver &) = delete;
  CheckpointSaver &operator=(const CheckpointSaver &) = delete;

  /// Saves checkpoint `position.iteration` (finishing one in flight first).
  /// In the foreground it is published when this returns.
  bool save(Trainer &trainer, Communicator &comm, const RunPosition &position, std::string &error);
  /// A background save: publishes it if every rank has written its file,
  /// or (`wait`) once they have. Collective; does nothing when none is in
  /// flight.
  bool finish(Communicator &comm, bool wait, std::string &error);
  bool pending() const { return inFlight_; }

  /// The last save: its iteration once published (-1 before), the bytes
  /// this rank wrote, and how long save() held training.
  int64_t published() const { return published_; }
  uint64_t bytes() const { return bytes_; }
  double holdSeconds() const { return holdSeconds_; }

private:
  void write();

  std::string dir_;
  int64_t keep_;
  bool background_;
  const plan::Plan *plan_ = nullptr;
  int64_t rank_ = 0, iteration_ = 0, published_ = -1;
  ckpt::TrainingState state_;
  std::vector<SavedPiece> pieces_;
  std::vector<const void *> sources_;
  std::vector<unsigned char> snapshot_;
  std::vector<uint64_t> sums_;
  uint64_t bytes_ = 0;
  double holdSeconds_ = 0;
  bool inFlight_ = false;
  std::atomic<bool> written_{false};
  bool writeOk_ = true;
  std::string writeError_;
  std::thread writer_;
};

/// Loads what `path` names (a checkpoint, or a save directory's newest)
/// into `trainer`. `loaded` receives the checkpoint's directory, `position`
/// where its run stood, `notes` what differs from this run without
/// preventing the load (another layout, another padding, another seed).
bool loadCheckpoint(Trainer &trainer, Communicator &comm, const std::string &path,
                    std::string &loaded, RunPosition &position, std::vector<std::string> &notes,
                    std::string &error);

} // namespace mt

#endif // MT_RUNTIME_TRAINING_CHECKPOINTING_H
