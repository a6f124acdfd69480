//===- CheckpointReader.h - reads logical tensors from a checkpoint -*- C++ -*-===//
//
// Opens a checkpoint, checks its manifest against the files (sizes, the
// pieces' ranges), and reads any logical tensor whole, every piece checked
// against its checksum and every element required exactly once. Reshaping
// is reading: a rank of any layout takes its pieces out of the whole
// tensors, padded vocabulary rows dropped or added as zeros.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_CHECKPOINTREADER_H
#define MT_CHECKPOINT_CHECKPOINTREADER_H

#include "mt/Checkpoint/CheckpointLayout.h"

#include <map>
#include <string>
#include <vector>

namespace mt {

class CheckpointReader {
public:
  CheckpointReader() = default;
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader &) = delete;
  CheckpointReader &operator=(const CheckpointReader &) = delete;

  /// Opens what --load names (see resolveCheckpoint) and checks that its
  /// manifest and files agree; false with a precise `error`.
  bool open(const std::string &path, std::string &error);

  const ckpt::Manifest &manifest() const { return manifest_; }
  /// The checkpoint directory (iter_*) opened.
  const std::string &directory() const { return dir_; }

  /// Empty when the checkpoint holds `plan`'s model (padding aside), else
  /// what differs, naming tensors and shapes.
  std::string differences(const plan::Plan &plan) const;
  /// False with an error listing the differences when the checkpoint is not
  /// of `plan`'s model.
  bool checkModel(const plan::Plan &plan, std::string &error) const;

  /// Writes into `dst` the elements `piece` describes of tensor (name, role)
  /// laid out as `param` (global shape and padding of the target plan).
  bool fill(const plan::Parameter &param, ckpt::Role role, const PieceShape &piece, void *dst,
            std::string &error);

  /// Tensor (name, role) whole, in the checkpoint's global shape.
  bool readWhole(int64_t tensor, std::vector<unsigned char> &out, std::string &error);

  /// Reads every file whole: each piece against its checksum, each tensor
  /// covered exactly once. Bytes checked in `bytes`.
  bool verify(uint64_t &bytes, std::string &error);

private:
  int64_t tensorIndex(const std::string &name, ckpt::Role role) const;
  bool readAt(size_t file, uint64_t offset, void *dst, size_t bytes, std::string &error);

  std::string dir_;
  ckpt::Manifest manifest_;
  std::vector<int> fds_; // one per manifest file
  // The last tensor read whole: a rank's stages often take pieces of the same one.
  int64_t cachedTensor_ = -1;
  std::vector<unsigned char> cached_;
};

} // namespace mt

#endif // MT_CHECKPOINT_CHECKPOINTREADER_H
