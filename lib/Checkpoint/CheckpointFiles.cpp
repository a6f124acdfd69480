//===- CheckpointFiles.cpp - a checkpoint directory on disk ----------------===//
#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Support/FramedFile.h"

#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mt {

namespace {

constexpr char kMagic[8] = {'M', 'T', 'C', 'K', 'P', 'T', 0, 0};

bool isFile(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The iteration of a directory named iter_<digits>, or -1.
int64_t iterationOf(const std::string &name) {
  const std::string prefix = "iter_";
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size() ||
      name.size() > prefix.size() + 18)
    return -1;
  int64_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

std::string pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  return std::string(s.size() < static_cast<size_t>(width) ? width - s.size() : 0, '0') + s;
}

} // namespace

uint64_t checksumOf(const void *data, size_t bytes) {
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), bytes));
}

uint64_t fileChecksum(const ckpt::File &file) {
  std::string sums;
  for (const ckpt::Piece &p : file.pieces())
    putU64LE(sums, p.checksum());
  return checksumOf(sums.data(), sums.size());
}

std::string iterationDirName(int64_t iteration) { return "iter_" + pad(iteration, 7); }
std::string rankFileName(int64_t rank) { return "rank_" + pad(rank, 5) + ".bin"; }
std::string partialDirName(int64_t iteration) { return ".partial." + iterationDirName(iteration); }

bool writeManifest(const ckpt::Manifest &manifest, const std::string &path, std::string &error) {
  std::string payload;
  if (!manifest.SerializeToString(&payload)) {
    error = "cannot serialize the checkpoint manifest";
    return false;
  }
  std::string file =
      frame(kMagic, kCheckpointFormatVersion, payload, checksumOf(payload.data(), payload.size()));
  return writeDurably(path, file.data(), file.size(), error);
}

bool readManifest(const std::string &path, ckpt::Manifest &manifest, std::string &error) {
  FrameHeader header;
  std::string payload;
  if (!readFrame(path, kMagic, "the checkpoint manifest", "an mt checkpoint manifest (bad magic)",
                 header, payload, error))
    return false;
  uint64_t version = header.version;
  if (version > kCheckpointFormatVersion) {
    error = "'" + path + "' is in checkpoint format " + std::to_string(version) +
            ", newer than this tool's " + std::to_string(kCheckpointFormatVersion) +
            ": use a newer mt-run / mt-ckpt";
    return false;
  }
  if (version == 0) {
    error = "'" + path + "' declares checkpoint format 0, which never existed: the file is corrupt";
    return false;
  }
  if (checksumOf(payload.data(), payload.size()) != header.checksum) {
    error = "'" + path + "' is corrupted: its checksum does not match its contents";
    return false;
  }
  if (!manifest.ParseFromString(payload)) {
    error = "'" + path + "' holds no valid manifest (the protobuf payload does not parse)";
    return false;
  }
  upgradeLegacyConfig(*manifest.mutable_saved_from());
  return true;
}

bool removeTree(const std::string &path, std::string &error) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) {
    error = "cannot remove '" + path + "': " + ec.message();
    return false;
  }
  return true;
}

std::vector<int64_t> listCheckpoints(const std::string &dir) {
  std::vector<int64_t> out;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    int64_t it = iterationOf(e.path().filename().string());
    if (it >= 0 && isFile((e.path() / "manifest.pb").string()))
      out.push_back(it);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool publishCheckpoint(const std::string &dir, int64_t iteration, int64_t keep,
                       std::string &error) {
  std::string name = iterationDirName(iteration);
  std::string target = dir + "/" + name, old = dir + "/.old." + name;
  // A checkpoint of the same iteration (a run resumed from an earlier one)
  // is moved aside first: rename cannot replace a directory that has files.
  if (isDirectory(target) &&
      (!removeTree(old, error) || std::rename(target.c_str(), old.c_str()) != 0)) {
    error = "cannot move the older checkpoint '" + target + "' aside: " + std::strerror(errno);
    return false;
  }
  if (std::rename((dir + "/" + partialDirName(iteration)).c_str(), target.c_str()) != 0) {
    error = "cannot move the checkpoint into place at '" + target + "': " + std::strerror(errno);
    return false;
  }
  if (!syncDirectory(dir, error))
    return false;
  std::string text = std::to_string(iteration) + "\n", tmp = dir + "/.latest.tmp";
  if (!writeDurably(tmp, text.data(), text.size(), error))
    return false;
  if (std::rename(tmp.c_str(), (dir + "/latest").c_str()) != 0) {
    error = "cannot update '" + dir + "/latest': " + std::strerror(errno);
    return false;
  }
  if (!syncDirectory(dir, error) || !removeTree(old, error))
    return false;
  if (keep <= 0)
    return true;
  std::vector<int64_t> all = listCheckpoints(dir);
  // The newest `keep` stay, and always the one just written.
  for (size_t i = 0; i + static_cast<size_t>(keep) < all.size(); ++i) {
    if (all[i] == iteration)
      continue;
    std::string path = dir + "/" + iterationDirName(all[i]);
    std::string doomed = dir + "/.old." + iterationDirName(all[i]);
    // Renamed before removal, so a killed removal never leaves a partial
    // directory that looks complete.
    if (std::rename(path.c_str(), doomed.c_str()) != 0 || !removeTree(doomed, error)) {
      if (error.empty())
        error = "cannot remove the old checkpoint '" + path + "': " + std::strerror(errno);
      return false;
    }
  }
  return syncDirectory(dir, error);
}

bool resolveCheckpoint(const std::string &path, std::string &checkpointDir, std::string &error) {
  if (isFile(path + "/manifest.pb")) {
    checkpointDir = path;
    return true;
  }
  if (!isDirectory(path)) {
    error = "no checkpoint at '" + path + "': " +
            (isFile(path) ? "it is a file, not a checkpoint directory" : "it does not exist");
    return false;
  }
  // `latest` names the newest complete save; a save killed between its
  // rename and the pointer's update leaves the pointer one behind, which is
  // still complete.
  std::ifstream latest(path + "/latest");
  int64_t named = -1;
  if (latest && (latest >> named) && named >= 0 &&
      isFile(path + "/" + iterationDirName(named) + "/manifest.pb")) {
    checkpointDir = path + "/" + iterationDirName(named);
    return true;
  }
  std::vector<int64_t> all = listCheckpoints(path);
  if (!all.empty()) {
    checkpointDir = path + "/" + iterationDirName(all.back());
    return true;
  }
  std::string partial;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(path, ec))
    if (e.path().filename().string().rfind(".partial.", 0) == 0)
      partial = e.path().filename().string();
  error = "no complete checkpoint in '" + path + "'" +
          (partial.empty() ? std::string(" (no iter_* directory with a manifest.pb)")
                           : " (only '" + partial + "', a save that did not finish)");
  return false;
}

} // namespace mt
