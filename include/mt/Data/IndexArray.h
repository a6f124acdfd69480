//===- IndexArray.h - an index array, built or mapped from a cache -*- C++ -*-===//
//
// The document, sample and shuffle index arrays of a dataset are built in
// memory, or on a later start read straight from a cache file's mapping
// (IndexCache.h): the array then keeps the mapping alive.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_INDEXARRAY_H
#define MT_DATA_INDEXARRAY_H

#include <cstddef>
#include <memory>
#include <vector>

namespace mt {

template <typename T> class IndexArray {
public:
  /// The array to build into (drops any mapped view).
  std::vector<T> &build() {
    keep_.reset();
    view_ = nullptr;
    return owned_;
  }
  /// Views `count` elements at `data`, which `keep` holds mapped.
  void view(const T *data, size_t count, std::shared_ptr<const void> keep) {
    owned_.clear();
    owned_.shrink_to_fit();
    view_ = data;
    count_ = count;
    keep_ = std::move(keep);
  }
  const T *data() const { return view_ ? view_ : owned_.data(); }
  size_t size() const { return view_ ? count_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  const T &operator[](size_t i) const { return data()[i]; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + size(); }
  const T &back() const { return data()[size() - 1]; }
  std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }

private:
  std::vector<T> owned_;
  const T *view_ = nullptr;
  size_t count_ = 0;
  std::shared_ptr<const void> keep_;
};

} // namespace mt

#endif // MT_DATA_INDEXARRAY_H
