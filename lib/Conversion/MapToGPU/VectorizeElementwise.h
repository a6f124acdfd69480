//===- VectorizeElementwise.h - elementwise kernels on 16-byte vectors -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H
#define MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mt {

/// How a kernel's chunk of W neighbouring elements reads an operand.
enum class VectorAccess {
  Vector,    ///< one aligned run of W elements: one vector.load
  Broadcast, ///< constant along the chunk: one scalar load, broadcast
};

/// The operand's access (read through `map`) when a chunk is W = `width`
/// neighbouring iterations of loop `innermost`, if the chunk is one aligned
/// run of it or constant along it; none when the loop walks a strided
/// dimension or the layout does not keep the run aligned to its size.
std::optional<VectorAccess> vectorAccessOf(mlir::Value operand, mlir::AffineMap map,
                                           unsigned innermost, int64_t width);

/// Whether `buffer`'s first element sits at a multiple of `width` elements
/// from an aligned allocation: a static offset that is one, or a slice whose
/// positions (static, or known only at run time) all step by multiples.
bool offsetAligned(mlir::Value buffer, int64_t width);
/// Whether chunks of `width` elements along the last dimension of `memref`
/// start at multiples of `width` elements (so of the vector's size) when
/// their last index is one: unit innermost stride, the other strides and the
/// offset multiples of `width`. A layer's slice of a stacked parameter (a
/// norm's weight at a run-time layer) is, when the rows it steps over are.
bool chunksAligned(mlir::Value memref, int64_t width);

/// Whether a linalg body can run on vectors: arithmetic on the elements and
/// on their indices (`linalg.index`: a dropout mask is keyed by each
/// element's position).
bool vectorizableBody(mlir::Block &body);

/// The alignment a vector of `width` `element`s is accessed with (its size:
/// NVPTX emits one ld.global.v4 only for a stated alignment).
inline llvm::MaybeAlign vectorAlignment(mlir::Type element, int64_t width) {
  return llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
}

/// The chunk of `buffer` at `at` as a vector of `width` elements.
mlir::Value loadChunk(mlir::IRRewriter &rewriter, mlir::Location loc, mlir::Value buffer,
                      mlir::ValueRange at, VectorAccess access, int64_t width);

/// `first`, `first` + 1, ..., `first` + W - 1: a chunk's positions along
/// the loop it walks (`linalg.index` of that loop).
mlir::Value chunkPositions(mlir::IRRewriter &rewriter, mlir::Location loc, mlir::Value first,
                           int64_t width);

/// Clones `body`'s ops on vectors of `width` lanes at the rewriter's
/// insertion point, its block arguments taken from `mapping` (vectors);
/// `positions(d)` gives the chunk's `linalg.index d`. Returns what the body
/// yields, as vectors.
llvm::SmallVector<mlir::Value>
cloneBodyOnVectors(mlir::IRRewriter &rewriter, mlir::Location loc, mlir::Block &body,
                   mlir::IRMapping &mapping, int64_t width,
                   llvm::function_ref<mlir::Value(unsigned)> positions);

/// Rewrites an elementwise `op` (every loop parallel, a body of arith and
/// math ops, static shapes and strides) as an scf.parallel over chunks of
/// `vectorBytes` bytes of its widest element: each iteration loads a vector
/// of W neighbouring elements of each operand along the innermost dimension
/// (`vector.load` aligned to the vector's size, which NVPTX turns into one
/// 16-byte access; an operand that does not vary along it is loaded once and
/// broadcast), computes the body on vectors and stores W results. Returns
/// null, changing nothing, when the op does not fit: the innermost size is
/// not a multiple of W, an operand is laid out so that a chunk is not one
/// aligned run, or the body reads loop indices.
mlir::scf::ParallelOp vectorizeElementwise(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                                           int64_t vectorBytes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_VECTORIZEELEMENTWISE_H
