//===- CheckpointWriter.cpp - writes a checkpoint, rank by rank ------------===//
#include "mt/Checkpoint/CheckpointWriter.h"

#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Plan/PlanFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace mt {

namespace {

bool makeDirs(const std::string &path, std::string &error) {
  std::string sofar;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/')
      continue;
    sofar = path.substr(0, i);
    if (sofar.empty())
      continue;
    struct stat st;
    if (stat(sofar.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        error = "cannot save into '" + path + "': '" + sofar + "' is not a directory";
        return false;
      }
      continue;
    }
    if (mkdir(sofar.c_str(), 0755) != 0 && errno != EEXIST) {
      error = "cannot create '" + sofar + "': " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

std::string utcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

} // namespace

namespace {

/// The tensors a checkpoint of `plan` lists: every one, or the parameters.
std::vector<ckpt::Tensor> savedTensors(const plan::Plan &plan, bool weightsOnly) {
  std::vector<ckpt::Tensor> tensors = logicalTensors(plan);
  if (weightsOnly)
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                 [](const ckpt::Tensor &t) { return t.role() != ckpt::PARAM; }),
                  tensors.end());
  return tensors;
}

} // namespace

bool savedPieces(const plan::Plan &plan, int64_t rank, std::vector<SavedPiece> &out,
                 std::string &error, bool weightsOnly) {
  std::vector<HeldPiece> held;
  if (!heldPieces(plan, rank, held, error))
    return false;
  std::map<std::pair<std::string, int>, int64_t> index;
  std::vector<ckpt::Tensor> tensors = savedTensors(plan, weightsOnly);
  for (size_t i = 0; i < tensors.size(); ++i)
    index[{tensors[i].name(), tensors[i].role()}] = static_cast<int64_t>(i);
  out.clear();
  uint64_t offset = 0;
  for (const HeldPiece &h : held) {
    if (!h.saves || h.elements() == 0 || (weightsOnly && h.role != ckpt::PARAM))
      continue;
    SavedPiece s;
    s.held = h;
    s.tensor = index[{h.param->name(), h.role}];
    s.offset = offset;
    s.bytes = static_cast<uint64_t>(h.elements() * h.elementBytes());
    offset += s.bytes;
    out.push_back(s);
  }
  return true;
}

bool beginCheckpoint(const std::string &dir, int64_t iteration, std::string &error) {
  std::string partial = dir + "/" + partialDirName(iteration);
  if (!makeDirs(dir, error))
    return false;
  // What killed saves and removals left: never complete, never loaded.
  std::error_code ec;
  for (const std::filesystem::directory_entry &e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if ((name.rfind(".partial.", 0) == 0 || name.rfind(".old.", 0) == 0) &&
        !removeTree(e.path().string(), error))
      return false;
  }
  if (mkdir(partial.c_str(), 0755) != 0) {
    error = "cannot create '" + partial + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool writeRankFile(const std::string &dir, int64_t iteration, int64_t rank,
                   const std::vector<SavedPiece> &pieces,
                   const std::function<const void *(size_t)> &data,
                   std::vector<uint64_t> &checksums, std::string &error) {
  std::string path = dir + "/" + partialDirName(iteration) + "/" + rankFileName(rank);
  int fd = createFile(path, error);
  if (fd < 0)
    return false;
  checksums.clear();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const void *p = data(i);
    checksums.push_back(checksumOf(p, pieces[i].bytes));
    if (!writeAll(fd, p, pieces[i].bytes, path, error)) {
      // A full disk: give back what this file took (the save is abandoned
      // and the previous checkpoint stays the newest).
      ::close(fd);
      ::unlink(path.c_str());
      return false;
    }
  }
  if (!syncAndClose(fd, path, error)) {
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

bool describeCheckpoint(const plan::Plan &plan, const ckpt::TrainingState &state,
                        const std::vector<std::vector<uint64_t>> &checksums, ckpt::Manifest &out,
                        std::string &error, bool weightsOnly) {
  out.Clear();
  out.set_format_version(kCheckpointFormatVersion);
  out.set_producer("mt (checkpoint format " + std::to_string(kCheckpointFormatVersion) + ")");
  out.set_model(plan.config().model());
  // The model's fingerprint, whatever of it is saved.
  out.set_fingerprint(modelFingerprint(logicalTensors(plan)));
  *out.mutable_state() = state;
  *out.mutable_saved_from() = plan.config();
  for (const ckpt::Tensor &t : savedTensors(plan, weightsOnly))
    *out.add_tensors() = t;
  out.set_weights_only(weightsOnly);
  out.set_created(utcNow());
  for (int64_t r = 0; r < static_cast<int64_t>(checksums.size()); ++r) {
    std::vector<SavedPiece> pieces;
    if (!savedPieces(plan, r, pieces, error, weightsOnly))
      return false;
    const std::vector<uint64_t> &sums = checksums[static_cast<size_t>(r)];
    if (sums.size() != pieces.size()) {
      error = "rank " + std::to_string(r) + " saved " + std::to_string(sums.size()) +
              " pieces, the plan says " + std::to_string(pieces.size());
      return false;
    }
    ckpt::File &f = *out.add_files();
    f.set_name(rankFileName(r));
    f.set_rank(r);
    uint64_t bytes = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
      ckpt::Piece &p = *f.add_pieces();
      p.set_tensor(pieces[i].tensor);
      pieces[i].held.shape.store(p);
      p.set_offset(pieces[i].offset);
      p.set_checksum(sums[i]);
      bytes = pieces[i].offset + pieces[i].bytes;
    }
    f.set_bytes(bytes);
    f.set_checksum(fileChecksum(f));
  }
  return true;
}

bool finishCheckpoint(const std::string &dir, int64_t iteration, const ckpt::Manifest &manifest,
                      int64_t keep, std::string &error) {
  std::string partial = dir + "/" + partialDirName(iteration);
  return writeManifest(manifest, partial + "/manifest.pb", error) &&
         syncDirectory(partial, error) && publishCheckpoint(dir, iteration, keep, error);
}

} // namespace mt
