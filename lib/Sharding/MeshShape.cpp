//===- MeshShape.cpp - device mesh geometry --------------------------------===//
#include "mt/Sharding/MeshShape.h"

#include <cassert>

namespace mt {

MeshShape::MeshShape(std::vector<std::string> axes, std::vector<int64_t> sizes)
    : axes_(std::move(axes)), sizes_(std::move(sizes)) {
  assert(axes_.size() == sizes_.size() && "one size per axis");
}

int64_t MeshShape::numRanks() const {
  int64_t n = 1;
  for (int64_t s : sizes_)
    n *= s;
  return n;
}

std::optional<size_t> MeshShape::axisIndex(const std::string &name) const {
  for (size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i] == name)
      return i;
  return std::nullopt;
}

std::optional<int64_t> MeshShape::axisSize(const std::string &name) const {
  if (auto i = axisIndex(name))
    return sizes_[*i];
  return std::nullopt;
}

std::vector<int64_t> MeshShape::coords(int64_t rank) const {
  std::vector<int64_t> c(axes_.size());
  for (size_t i = axes_.size(); i-- > 0;) {
    c[i] = rank % sizes_[i];
    rank /= sizes_[i];
  }
  return c;
}

int64_t MeshShape::rank(const std::vector<int64_t> &coords) const {
  int64_t r = 0;
  for (size_t i = 0; i < axes_.size(); ++i)
    r = r * sizes_[i] + coords[i];
  return r;
}

int64_t MeshShape::groupSize(const std::vector<std::string> &axes) const {
  int64_t n = 1;
  for (const auto &a : axes)
    n *= axisSize(a).value_or(0);
  return n;
}

int64_t MeshShape::indexInGroup(int64_t rank, const std::vector<std::string> &axes) const {
  std::vector<int64_t> c = coords(rank);
  int64_t index = 0;
  for (const auto &a : axes) {
    size_t i = *axisIndex(a);
    index = index * sizes_[i] + c[i];
  }
  return index;
}

std::vector<int64_t> MeshShape::groupOf(int64_t rank, const std::vector<std::string> &axes) const {
  std::vector<int64_t> base = coords(rank);
  int64_t n = groupSize(axes);
  std::vector<int64_t> ranks;
  ranks.reserve(n);
  for (int64_t g = 0; g < n; ++g) {
    // Decode g over `axes` (last axis fastest), overwrite those coordinates.
    std::vector<int64_t> c = base;
    int64_t rest = g;
    for (size_t k = axes.size(); k-- > 0;) {
      size_t i = *axisIndex(axes[k]);
      c[i] = rest % sizes_[i];
      rest /= sizes_[i];
    }
    ranks.push_back(this->rank(c));
  }
  return ranks;
}

std::optional<int64_t> MeshShape::peer(int64_t rank, const std::string &axis,
                                       int64_t offset) const {
  auto i = axisIndex(axis);
  if (!i)
    return std::nullopt;
  std::vector<int64_t> c = coords(rank);
  int64_t target = c[*i] + offset;
  if (target < 0 || target >= sizes_[*i])
    return std::nullopt;
  c[*i] = target;
  return this->rank(c);
}

std::optional<int64_t> shardSize(int64_t globalSize, int64_t parts) {
  if (parts <= 0 || globalSize % parts != 0)
    return std::nullopt;
  return globalSize / parts;
}

int64_t roundUpToMultiple(int64_t value, int64_t multiple) {
  if (multiple <= 1)
    return value;
  return (value + multiple - 1) / multiple * multiple;
}

} // namespace mt
