//===- MeshShape.h - device mesh geometry, free of MLIR --------*- C++ -*-===//
//
// The arithmetic of a device mesh: rank <-> coordinates, the groups a
// collective over some axes forms, and how a dimension splits over axes.
// Plain C++ so the verifier, the partitioner and the runtime share one
// definition, and unit tests cover it without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SHARDING_MESHSHAPE_H
#define MT_SHARDING_MESHSHAPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mt {

class MeshShape {
public:
  MeshShape() = default;
  /// Axes are listed outermost first; the last axis varies fastest in rank order.
  MeshShape(std::vector<std::string> axes, std::vector<int64_t> sizes);

  const std::vector<std::string> &axes() const { return axes_; }
  const std::vector<int64_t> &sizes() const { return sizes_; }
  int64_t numRanks() const;

  /// Index of axis `name`, or nullopt.
  std::optional<size_t> axisIndex(const std::string &name) const;
  /// Size of axis `name`, or nullopt.
  std::optional<int64_t> axisSize(const std::string &name) const;

  /// Coordinates of `rank`, one per axis.
  std::vector<int64_t> coords(int64_t rank) const;
  /// The rank at `coords`.
  int64_t rank(const std::vector<int64_t> &coords) const;

  /// Number of ranks in one group of a collective over `axes`
  /// (the product of their sizes). Unknown axes count as size 0.
  int64_t groupSize(const std::vector<std::string> &axes) const;
  /// Position of `rank` inside its group over `axes` (axes listed outermost first).
  int64_t indexInGroup(int64_t rank, const std::vector<std::string> &axes) const;
  /// Every rank of `rank`'s group over `axes`, in group order.
  std::vector<int64_t> groupOf(int64_t rank, const std::vector<std::string> &axes) const;

  /// The rank at `offset` from `rank` along `axis`, or nullopt outside the mesh.
  std::optional<int64_t> peer(int64_t rank, const std::string &axis, int64_t offset) const;

private:
  std::vector<std::string> axes_;
  std::vector<int64_t> sizes_;
};

/// The size of one shard when a dimension of `globalSize` is split `parts`
/// ways; nullopt when it does not divide evenly.
std::optional<int64_t> shardSize(int64_t globalSize, int64_t parts);

/// `value` rounded up to a multiple of `multiple` (Megatron's vocab padding).
int64_t roundUpToMultiple(int64_t value, int64_t multiple);

} // namespace mt

#endif // MT_SHARDING_MESHSHAPE_H
