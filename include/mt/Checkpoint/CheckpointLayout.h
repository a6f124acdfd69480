//===- CheckpointLayout.h - which pieces of which tensors a rank holds -*- C++ -*-===//
//
// A checkpoint stores logical tensors (each parameter and its two AdamW
// moments) as the pieces the ranks of the saving plan held. This computes,
// from a plan alone, what each rank holds in which buffer and which of those
// pieces it saves (one copy of each element: data-parallel rank 0 for
// replicated state, tensor-parallel rank 0 for parameters replicated over
// tp, the first stage of a tied parameter), so the writer, the loader and
// `mt-ckpt convert` agree without a trainer. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_CHECKPOINT_CHECKPOINTLAYOUT_H
#define MT_CHECKPOINT_CHECKPOINTLAYOUT_H

#include "checkpoint.pb.h"
#include "plan.pb.h"

#include "mt/Sharding/TensorShard.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// Where a piece sits in its logical tensor: layers, tensor-parallel split,
/// and the range of the piece's local elements held.
struct PieceShape {
  int64_t layerBegin = 0, layerEnd = 0; // both 0: every layer
  int64_t splitDim = -1, parts = 1, part = 0, segments = 1;
  int64_t flatBegin = 0, flatEnd = 0; // local elements held

  /// The piece's elements within the global tensor of `globalShape`.
  TensorShard shard(const std::vector<int64_t> &globalShape) const;
  void store(ckpt::Piece &out) const;
  static PieceShape from(const ckpt::Piece &piece);
};

/// What one rank holds of one logical tensor, in one of its buffers.
struct HeldPiece {
  const plan::Parameter *param = nullptr;
  ckpt::Role role = ckpt::PARAM;
  std::string buffer; // the trainer's buffer ("s1/exp_avg:wte")
  PieceShape shape;   // the buffer's first flatEnd - flatBegin elements hold these
  bool saves = false; // this rank writes it (the one copy of these elements)
  int64_t elementBytes() const;
  int64_t elements() const { return shape.flatEnd - shape.flatBegin; }
};

/// The buffer name the trainer gives a role's state of parameter `name` on
/// a stage with buffer prefix `prefix` ("" or "s<k>/").
std::string stateBufferName(const std::string &prefix, ckpt::Role role, const std::string &name);

/// Every piece rank `rank` of `plan` holds, parameters first, stage by
/// stage in the order the plan lists them; false with `error` when the plan
/// describes an impossible layout.
bool heldPieces(const plan::Plan &plan, int64_t rank, std::vector<HeldPiece> &out,
                std::string &error);

/// The logical tensors of a plan's model: every parameter with its moments.
std::vector<ckpt::Tensor> logicalTensors(const plan::Plan &plan);

/// The fingerprint of a model's tensors (names, roles, unpadded shapes,
/// dtypes), independent of layout and vocabulary padding.
std::string modelFingerprint(const std::vector<ckpt::Tensor> &tensors);

/// Empty when a checkpoint of `saved` tensors loads into `target`'s; else
/// every difference, one per line, naming the tensor and its shapes.
std::string modelDifferences(const std::vector<ckpt::Tensor> &saved,
                             const std::vector<ckpt::Tensor> &target);

std::string shapeText(const std::vector<int64_t> &shape);
const char *roleName(ckpt::Role role);

} // namespace mt

#endif // MT_CHECKPOINT_CHECKPOINTLAYOUT_H
