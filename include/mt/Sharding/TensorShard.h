//===- TensorShard.h - which elements of a tensor a rank holds -*- C++ -*-===//
//
// A rank holds a piece of a parameter: a range of layers of a stacked one
// (pipeline parallelism) and, along one dimension, piece `index` of `parts`
// (tensor parallelism), taken from each of `segments` equal consecutive
// segments of that dimension ([q; k; v] weights have three). This maps the
// piece's elements to their positions in the whole tensor, which is what
// initialization by global index and gathering need. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SHARDING_TENSORSHARD_H
#define MT_SHARDING_TENSORSHARD_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

class TensorShard {
public:
  TensorShard() = default;
  /// The whole of a tensor of `globalShape`.
  explicit TensorShard(std::vector<int64_t> globalShape);

  /// Keeps layers [begin, end) of dimension 0 (a stacked parameter).
  TensorShard &layers(int64_t begin, int64_t end);
  /// Keeps piece `index` of `parts` along `dim`, in each of `segments`.
  TensorShard &split(int64_t dim, int64_t parts, int64_t index, int64_t segments = 1);

  /// Empty when the layout is possible, else why not.
  std::string check() const;

  const std::vector<int64_t> &globalShape() const { return global_; }
  const std::vector<int64_t> &localShape() const { return local_; }
  int64_t numLocalElements() const;
  /// The row-major index in the whole tensor of local element `local`.
  int64_t globalIndex(int64_t local) const;

private:
  std::vector<int64_t> global_, local_;
  int64_t layerBegin_ = 0;
  int64_t splitDim_ = -1, parts_ = 1, index_ = 0, segments_ = 1;
};

} // namespace mt

#endif // MT_SHARDING_TENSORSHARD_H
