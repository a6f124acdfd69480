//===- TensorShard.cpp - which elements of a tensor a rank holds -----------===//
#include "mt/Sharding/TensorShard.h"

namespace mt {

TensorShard::TensorShard(std::vector<int64_t> globalShape)
    : global_(globalShape), local_(std::move(globalShape)) {}

TensorShard &TensorShard::layers(int64_t begin, int64_t end) {
  layerBegin_ = begin;
  if (!local_.empty())
    local_[0] = end - begin;
  return *this;
}

TensorShard &TensorShard::split(int64_t dim, int64_t parts, int64_t index, int64_t segments) {
  splitDim_ = dim;
  parts_ = parts;
  index_ = index;
  segments_ = segments;
  if (dim >= 0 && dim < static_cast<int64_t>(local_.size()) && parts > 0)
    local_[dim] = global_[dim] / parts;
  return *this;
}

std::string TensorShard::check() const {
  if (!global_.empty() &&
      (layerBegin_ < 0 || local_[0] < 0 || layerBegin_ + local_[0] > global_[0]))
    return "layers outside the tensor";
  if (splitDim_ < 0)
    return "";
  if (splitDim_ >= static_cast<int64_t>(global_.size()))
    return "split dimension " + std::to_string(splitDim_) + " is outside rank " +
           std::to_string(global_.size());
  if (splitDim_ == 0 && layerBegin_ != 0)
    return "a stacked parameter cannot be split along its layers";
  if (parts_ < 1 || segments_ < 1 || index_ < 0 || index_ >= parts_ ||
      global_[splitDim_] % (parts_ * segments_) != 0)
    return "dimension " + std::to_string(splitDim_) + " of size " +
           std::to_string(global_[splitDim_]) + " does not split into " +
           std::to_string(segments_) + " segments of " + std::to_string(parts_) + " pieces";
  return "";
}

int64_t TensorShard::numLocalElements() const {
  int64_t n = 1;
  for (int64_t d : local_)
    n *= d;
  return n;
}

int64_t TensorShard::globalIndex(int64_t local) const {
  int64_t rank = static_cast<int64_t>(local_.size());
  int64_t global = 0, stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t x = local % local_[d];
    local /= local_[d];
    if (d == 0)
      x += layerBegin_;
    if (d == splitDim_) {
      // local x = (segment, position in this rank's piece of the segment)
      int64_t piece = local_[d] / segments_;
      x = (x / piece) * (global_[d] / segments_) + index_ * piece + x % piece;
    }
    global += x * stride;
    stride *= global_[d];
  }
  return global;
}

} // namespace mt
