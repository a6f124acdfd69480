//===- BufferRanges.h - which bytes of which buffer a memref views -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_BUFFERRANGES_H
#define MT_LIB_CONVERSION_MAPTOGPU_BUFFERRANGES_H

#include "mlir/IR/Value.h"

#include <limits>

namespace mt {

/// The bytes [begin, end) of `root` a memref value views; all of it when
/// unknown. `resolved`: the root is a buffer (an allocation, a global, a
/// function argument), not a value the analysis could not follow.
struct BufferRange {
  static constexpr int64_t kWhole = std::numeric_limits<int64_t>::max();
  mlir::Value root;
  int64_t begin = 0, end = kWhole;
  bool resolved = false;
};

/// Follows views (a memref.view at a constant offset narrows the range),
/// and buffers carried through scf.for loops that hand them on unchanged,
/// to the buffer underneath.
BufferRange rangeOf(mlir::Value memref);

/// Whether two ranges may share a byte: the same buffer, a value not
/// followed to its buffer, or two function arguments the caller could pass
/// one buffer for (both marked noalias, or naming two different buffers
/// of the plan with mt.buffer, mt.param, mt.accumulator_of or mt.batch,
/// they cannot).
bool mayOverlap(const BufferRange &a, const BufferRange &b);

/// Whether two views of one buffer interleave without sharing an element:
/// subviews of the same memref whose innermost dimension is contiguous and
/// whose outer strides are all multiples of one period P, each covering a
/// different part of every period (the query, key and value columns of a
/// packed [rows, 3 x width] gradient, written by a concat's three copies),
/// or reshapes of such subviews (the merged heads written into them).
bool interleaveDisjointly(mlir::Value a, mlir::Value b);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_BUFFERRANGES_H
