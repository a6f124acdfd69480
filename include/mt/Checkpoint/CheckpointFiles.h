//===- CheckpointFiles.h - a checkpoint directory on disk --------*- C++ -*-===//
//
// DIR/iter_0000040/{manifest.pb, rank_00000.bin, ...} and DIR/latest (the
// iteration of the newest complete checkpoint, Megatron's
// latest_checkpointed_iteration.txt). A checkpoint is written into
// DIR/.partial.iter_0000040, every file fsynced, then renamed into place;
// `latest` is replaced by rename too. So a directory named iter_* is always
// complete, and a killed save leaves at most a .partial directory that the
// next save removes.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_CHECKPOINTFILES_H
#define MT_CHECKPOINT_CHECKPOINTFILES_H

#include "checkpoint.pb.h"
#include "mt/Support/DurableFiles.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// Bumped whenever a change to checkpoint.proto or the files' meaning would
/// make an older tool misread a newer checkpoint.
inline constexpr uint64_t kCheckpointFormatVersion = 1;

/// xxh3-64 of `bytes` bytes at `data`.
uint64_t checksumOf(const void *data, size_t bytes);
/// A file's checksum from its pieces' (ckpt::File::checksum).
uint64_t fileChecksum(const ckpt::File &file);

std::string iterationDirName(int64_t iteration); // "iter_0000040"
std::string rankFileName(int64_t rank);          // "rank_00003.bin"
std::string partialDirName(int64_t iteration);   // ".partial.iter_0000040"

bool writeManifest(const ckpt::Manifest &manifest, const std::string &path, std::string &error);
bool readManifest(const std::string &path, ckpt::Manifest &manifest, std::string &error);

/// Removes `path` and everything under it; true when it is gone.
bool removeTree(const std::string &path, std::string &error);

/// Moves the partial directory of `iteration` in `dir` into place (replacing
/// an older checkpoint of the same iteration), points `latest` at it, and
/// keeps only the newest `keep` checkpoints (0: all).
bool publishCheckpoint(const std::string &dir, int64_t iteration, int64_t keep, std::string &error);

/// The complete checkpoints (iteration numbers) in `dir`, oldest first.
std::vector<int64_t> listCheckpoints(const std::string &dir);

/// Resolves what --load names: a checkpoint directory (one holding
/// manifest.pb), or a save directory whose newest complete checkpoint is
/// taken (by `latest`, else by name). False with a precise `error` when there
/// is none.
bool resolveCheckpoint(const std::string &path, std::string &checkpointDir, std::string &error);

} // namespace mt

#endif // MT_CHECKPOINT_CHECKPOINTFILES_H
