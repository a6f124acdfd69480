//===- Checkpointing.h - saves and restores a trainer's state --*- C++ -*-===//
//
// mt-run's side of checkpoints (mt/Checkpoint): every rank writes the pieces
// it saves from its trainer's buffers into its own file, in parallel; rank 0
// writes the manifest with what a resume needs and publishes the save. A
// load fills each rank's buffers, whatever layout saved them, and restores
// the optimizer's step, the loss scaler and the data order's position.
// Both are collective: every rank calls them, and a failure on one rank is
// an error on all (no rank is left waiting).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CHECKPOINTING_H
#define MT_RUNTIME_CHECKPOINTING_H

#include "mt/Runtime/Trainer.h"

#include <string>
#include <vector>

namespace mt {

/// Where a run stands, besides its tensors.
struct RunPosition {
  int64_t iteration = 0;                       // steps completed
  int64_t trainSamples = 0, validSamples = 0;  // samples the splits have served
  int64_t trainSplitSamples = 0;               // the training split's size
};

/// Saves checkpoint `position.iteration` into `dir`, keeping the newest
/// `keep` (0: all). `bytes` receives what this rank wrote.
bool saveCheckpoint(Trainer &trainer, Communicator &comm, const std::string &dir, int64_t keep,
                    const RunPosition &position, uint64_t &bytes, std::string &error);

/// Loads what `path` names (a checkpoint, or a save directory's newest)
/// into `trainer`. `loaded` receives the checkpoint's directory, `position`
/// where its run stood, `notes` what differs from this run without
/// preventing the load (another layout, another padding, another seed).
bool loadCheckpoint(Trainer &trainer, Communicator &comm, const std::string &path,
                    std::string &loaded, RunPosition &position, std::vector<std::string> &notes,
                    std::string &error);

} // namespace mt

#endif // MT_RUNTIME_CHECKPOINTING_H
