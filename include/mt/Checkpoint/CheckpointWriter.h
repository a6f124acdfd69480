//===- CheckpointWriter.h - writes a checkpoint, rank by rank ---*- C++ -*-===//
//
// A save in three parts, so ranks can write in parallel: the lead rank
// begins it (an empty partial directory), every rank writes its own file of
// the pieces it saves, and the lead rank, given every file's piece
// checksums, writes the manifest and publishes the checkpoint. Offsets and
// piece order follow from the plan (savedPieces), so only the checksums
// travel between ranks.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_CHECKPOINTWRITER_H
#define MT_CHECKPOINT_CHECKPOINTWRITER_H

#include "mt/Checkpoint/CheckpointLayout.h"

#include <functional>
#include <string>
#include <vector>

namespace mt {

/// A piece a rank saves, where it goes in its file.
struct SavedPiece {
  HeldPiece held;
  int64_t tensor = 0; // index into logicalTensors(plan)
  uint64_t offset = 0, bytes = 0;
};

/// The pieces rank `rank` of `plan` saves, in file order; with
/// `weightsOnly`, its parameters' pieces alone.
bool savedPieces(const plan::Plan &plan, int64_t rank, std::vector<SavedPiece> &out,
                 std::string &error, bool weightsOnly = false);

/// Creates `dir` if needed and an empty partial directory for `iteration`,
/// removing what killed saves left (.partial.* and .old.* directories).
bool beginCheckpoint(const std::string &dir, int64_t iteration, std::string &error);

/// Writes rank `rank`'s file into the partial directory: piece i's bytes
/// come from data(i). `checksums` receives each piece's.
bool writeRankFile(const std::string &dir, int64_t iteration, int64_t rank,
                   const std::vector<SavedPiece> &pieces,
                   const std::function<const void *(size_t)> &data,
                   std::vector<uint64_t> &checksums, std::string &error);

/// The manifest of a checkpoint of `plan` in which rank r's file holds
/// pieces with checksums[r] (savedPieces' with the same `weightsOnly`).
bool describeCheckpoint(const plan::Plan &plan, const ckpt::TrainingState &state,
                        const std::vector<std::vector<uint64_t>> &checksums, ckpt::Manifest &out,
                        std::string &error, bool weightsOnly = false);

/// Writes the manifest into the partial directory and publishes it
/// (publishCheckpoint), keeping the newest `keep` checkpoints (0: all).
bool finishCheckpoint(const std::string &dir, int64_t iteration, const ckpt::Manifest &manifest,
                      int64_t keep, std::string &error);

} // namespace mt

#endif // MT_CHECKPOINT_CHECKPOINTWRITER_H
