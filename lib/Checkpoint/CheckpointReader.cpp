//===- CheckpointReader.cpp - reads logical tensors from a checkpoint ------===//
#include "mt/Checkpoint/CheckpointReader.h"

#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Plan/PlanFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mt {

namespace {

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> shapeOf(const ckpt::Tensor &t) { return {t.shape().begin(), t.shape().end()}; }

bool wholeTensor(const PieceShape &p) { return p.layerEnd == 0 && p.splitDim < 0; }

} // namespace

CheckpointReader::~CheckpointReader() {
  for (int fd : fds_)
    if (fd >= 0)
      ::close(fd);
}

bool CheckpointReader::open(const std::string &path, std::string &error) {
  if (!resolveCheckpoint(path, dir_, error) ||
      !readManifest(dir_ + "/manifest.pb", manifest_, error))
    return false;
  std::string where = "checkpoint '" + dir_ + "'";
  const auto &tensors = manifest_.tensors();
  for (const ckpt::Tensor &t : tensors) {
    for (int64_t d : t.shape())
      if (d < 0 || d > (int64_t(1) << 40)) {
        error = where + " is corrupt: tensor '" + t.name() + "' has shape " + shapeText(shapeOf(t));
        return false;
      }
    if (t.dtype() != plan::F32 && t.dtype() != plan::F64) {
      error = where + " is corrupt: tensor '" + t.name() + "' is stored in " +
              plan::DType_Name(t.dtype()) + " (checkpoints hold F32 or F64)";
      return false;
    }
  }
  for (const ckpt::File &f : manifest_.files()) {
    if (f.name().empty() || f.name().find('/') != std::string::npos || f.name()[0] == '.') {
      error = where + " is corrupt: its manifest names a file '" + f.name() + "'";
      return false;
    }
    std::string file = dir_ + "/" + f.name();
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = where + " is incomplete: cannot open its file '" + f.name() +
              "': " + std::strerror(errno);
      return false;
    }
    fds_.push_back(fd);
    struct stat st;
    if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != f.bytes()) {
      error = where + ": file '" + f.name() + "' holds " + std::to_string(st.st_size) +
              " bytes but the manifest says " + std::to_string(f.bytes()) +
              (static_cast<uint64_t>(st.st_size) < f.bytes() ? " (truncated)" : "");
      return false;
    }
    if (fileChecksum(f) != f.checksum()) {
      error = where + " is corrupt: the manifest's checksum of '" + f.name() +
              "' does not match its pieces'";
      return false;
    }
    uint64_t end = 0;
    for (const ckpt::Piece &p : f.pieces()) {
      if (p.tensor() < 0 || p.tensor() >= tensors.size()) {
        error = where + " is corrupt: a piece of '" + f.name() + "' names tensor " +
                std::to_string(p.tensor()) + " of " + std::to_string(tensors.size());
        return false;
      }
      const ckpt::Tensor &t = tensors[static_cast<int>(p.tensor())];
      PieceShape shape = PieceShape::from(p);
      TensorShard shard = shape.shard(shapeOf(t));
      std::string bad = shard.check();
      int64_t bytes = (shape.flatEnd - shape.flatBegin) * dtypeBytes(t.dtype());
      if (bad.empty() && (shape.flatBegin < 0 || shape.flatEnd < shape.flatBegin ||
                          shape.flatEnd > shard.numLocalElements()))
        bad = "elements [" + std::to_string(shape.flatBegin) + ", " +
              std::to_string(shape.flatEnd) + ") of a piece of " +
              std::to_string(shard.numLocalElements());
      if (bad.empty() && p.offset() + static_cast<uint64_t>(bytes) > f.bytes())
        bad = "bytes past the end of the file";
      if (!bad.empty()) {
        error = where + " is corrupt: a piece of tensor '" + t.name() + "' in '" + f.name() +
                "' is impossible: " + bad;
        return false;
      }
      end = std::max(end, p.offset() + static_cast<uint64_t>(bytes));
    }
    if (end != f.bytes()) {
      error = where + " is corrupt: '" + f.name() + "' has " + std::to_string(f.bytes() - end) +
              " bytes no piece describes";
      return false;
    }
  }
  return true;
}

std::string CheckpointReader::differences(const plan::Plan &plan) const {
  std::vector<ckpt::Tensor> target = logicalTensors(plan);
  if (manifest_.weights_only()) // the moments load as zeros
    target.erase(std::remove_if(target.begin(), target.end(),
                                [](const ckpt::Tensor &t) { return t.role() != ckpt::PARAM; }),
                 target.end());
  return modelDifferences({manifest_.tensors().begin(), manifest_.tensors().end()}, target);
}

int64_t CheckpointReader::tensorIndex(const std::string &name, ckpt::Role role) const {
  for (int i = 0; i < manifest_.tensors_size(); ++i)
    if (manifest_.tensors(i).name() == name && manifest_.tensors(i).role() == role)
      return i;
  return -1;
}

bool CheckpointReader::readAt(size_t file, uint64_t offset, void *dst, size_t bytes,
                              std::string &error) {
  auto *p = static_cast<char *>(dst);
  while (bytes > 0) {
    ssize_t n = ::pread(fds_[file], p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot read '" + dir_ + "/" + manifest_.files(static_cast<int>(file)).name() +
              "': " + (n == 0 ? std::string("unexpected end of file") : std::strerror(errno));
      return false;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

bool CheckpointReader::readWhole(int64_t tensor, std::vector<unsigned char> &out,
                                 std::string &error) {
  const ckpt::Tensor &t = manifest_.tensors(static_cast<int>(tensor));
  std::string what =
      "tensor '" + t.name() + "' (" + roleName(t.role()) + ") of checkpoint '" + dir_ + "'";
  std::vector<int64_t> shape = shapeOf(t);
  int64_t total = product(shape), eb = dtypeBytes(t.dtype());
  out.assign(static_cast<size_t>(total * eb), 0);
  std::vector<uint8_t> covered(static_cast<size_t>(total), 0);
  std::vector<unsigned char> piece;
  for (size_t fi = 0; fi < static_cast<size_t>(manifest_.files_size()); ++fi) {
    const ckpt::File &f = manifest_.files(static_cast<int>(fi));
    for (const ckpt::Piece &p : f.pieces()) {
      if (p.tensor() != tensor)
        continue;
      PieceShape ps = PieceShape::from(p);
      int64_t n = ps.flatEnd - ps.flatBegin;
      piece.resize(static_cast<size_t>(n * eb));
      if (!readAt(fi, p.offset(), piece.data(), piece.size(), error))
        return false;
      if (checksumOf(piece.data(), piece.size()) != p.checksum()) {
        error = what + ": the piece at byte " + std::to_string(p.offset()) + " of '" + f.name() +
                "' does not match its checksum (the file is corrupt)";
        return false;
      }
      TensorShard shard = ps.shard(shape);
      for (int64_t i = 0; i < n; ++i) {
        int64_t g = wholeTensor(ps) ? ps.flatBegin + i : shard.globalIndex(ps.flatBegin + i);
        if (covered[static_cast<size_t>(g)]++) {
          error = what + " is corrupt: element " + std::to_string(g) + " is stored twice";
          return false;
        }
      }
      if (wholeTensor(ps)) {
        std::memcpy(out.data() + ps.flatBegin * eb, piece.data(), piece.size());
        continue;
      }
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(out.data() + shard.globalIndex(ps.flatBegin + i) * eb, piece.data() + i * eb,
                    static_cast<size_t>(eb));
    }
  }
  auto missing = std::find(covered.begin(), covered.end(), 0);
  if (missing != covered.end()) {
    error = what + " is incomplete: element " + std::to_string(missing - covered.begin()) + " of " +
            std::to_string(total) + " is in no file";
    return false;
  }
  return true;
}

bool CheckpointReader::fill(const plan::Parameter &param, ckpt::Role role, const PieceShape &piece,
                            void *dst, std::string &error) {
  int64_t index = tensorIndex(param.name(), role);
  if (index < 0 && role != ckpt::PARAM && manifest_.weights_only()) {
    std::memset(dst, 0, static_cast<size_t>((piece.flatEnd - piece.flatBegin) *
                                            dtypeBytes(param.dtype())));
    return true; // never saved: AdamW's moments start at zero
  }
  if (index < 0) {
    error =
        "checkpoint '" + dir_ + "' has no tensor '" + param.name() + "' (" + roleName(role) + ")";
    return false;
  }
  const ckpt::Tensor &t = manifest_.tensors(static_cast<int>(index));
  if (t.dtype() != param.dtype()) {
    error = "tensor '" + param.name() + "' is " + plan::DType_Name(t.dtype()) +
            " in the checkpoint but " + plan::DType_Name(param.dtype()) + " in the plan";
    return false;
  }
  if (cachedTensor_ != index) {
    cachedTensor_ = -1;
    if (!readWhole(index, cached_, error))
      return false;
    cachedTensor_ = index;
  }
  std::vector<int64_t> from = shapeOf(t), to(param.shape().begin(), param.shape().end());
  int64_t eb = dtypeBytes(t.dtype());
  // The target's rows: the same as the source's, or (another vocabulary
  // padding) the real rows copied and the padding rows zero.
  int64_t realRows = 0, rowElements = 1;
  if (from != to) {
    int64_t sourceReal = t.unpadded_rows() > 0 ? t.unpadded_rows() : (from.empty() ? 0 : from[0]);
    int64_t targetReal =
        param.unpadded_rows() > 0 ? param.unpadded_rows() : (to.empty() ? 0 : to[0]);
    bool sameRest = from.size() == to.size() && !from.empty() &&
                    std::equal(from.begin() + 1, from.end(), to.begin() + 1);
    if (!sameRest || sourceReal != targetReal || sourceReal > from[0] || targetReal > to[0]) {
      error = "tensor '" + param.name() + "' has shape " + shapeText(from) +
              " in the checkpoint but " + shapeText(to) + " in the plan";
      return false;
    }
    realRows = sourceReal;
    rowElements = product(to) / std::max<int64_t>(to[0], 1);
  }
  TensorShard shard = piece.shard(to);
  auto *out = static_cast<unsigned char *>(dst);
  for (int64_t i = piece.flatBegin; i < piece.flatEnd; ++i) {
    int64_t g = wholeTensor(piece) ? i : shard.globalIndex(i);
    unsigned char *o = out + (i - piece.flatBegin) * eb;
    if (from == to)
      std::memcpy(o, cached_.data() + g * eb, static_cast<size_t>(eb));
    else if (g / rowElements < realRows)
      std::memcpy(o, cached_.data() + g * eb, static_cast<size_t>(eb)); // same row-major offset
    else
      std::memset(o, 0, static_cast<size_t>(eb));
  }
  return true;
}

bool CheckpointReader::verify(uint64_t &bytes, std::string &error) {
  bytes = 0;
  std::vector<unsigned char> whole;
  for (int i = 0; i < manifest_.tensors_size(); ++i) {
    if (!readWhole(i, whole, error))
      return false;
    bytes += whole.size();
  }
  return true;
}

bool CheckpointReader::checkModel(const plan::Plan &plan, std::string &error) const {
  std::string diff = differences(plan);
  if (diff.empty())
    return true;
  diff.pop_back();
  error = "checkpoint '" + dir_ + "' (model '" + manifest_.model() +
          "') is not of this plan's model '" + plan.config().model() + "':";
  for (size_t begin = 0, end; begin <= diff.size(); begin = end + 1) {
    end = std::min(diff.find('\n', begin), diff.size());
    error += "\n  " + diff.substr(begin, end - begin);
  }
  return false;
}

} // namespace mt
