//===- VectorizeElementwise.cpp - elementwise kernels on 16-byte vectors ---===//
//
// A memory-bound kernel is as fast as its loads: a thread that loads one
// f32 at a time issues four times the instructions of one that loads a
// 16-byte vector, and an element type narrower than the widest one in the
// body still moves whole vectors. NVPTX emits ld.global.v4 only for a
// vector access whose alignment is stated, so each access carries the
// vector's size as its alignment; the checks below make that true (the
// arena's buffers and the runtime's allocations start 64-byte aligned).
//
//===----------------------------------------------------------------------===//
#include "VectorizeElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

using namespace mlir;

namespace mt {

std::optional<VectorAccess> vectorAccessOf(Value operand, AffineMap map, unsigned innermost,
                                           int64_t width) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  // i1 is a byte in memory but a bit in a vector (see VectorizeRows.cpp).
  if (!type || !map.isProjectedPermutation() || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8)
    return std::nullopt;
  bool varies = false;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    if (map.getDimPosition(r) == innermost) {
      if (r + 1 != map.getNumResults())
        return std::nullopt; // the innermost loop walks a strided dimension
      varies = true;
    }
  if (!varies)
    return VectorAccess::Broadcast;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1 ||
      !offsetAligned(operand, width))
    return std::nullopt;
  for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % width)
      return std::nullopt;
  return VectorAccess::Vector;
}

bool chunksAligned(Value memref, int64_t width) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || !offsetAligned(memref, width))
    return false;
  return llvm::all_of(ArrayRef<int64_t>(strides).drop_back(),
                      [&](int64_t s) { return !ShapedType::isDynamic(s) && s % width == 0; });
}

bool offsetAligned(Value buffer, int64_t width) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  if (!ShapedType::isDynamic(offset))
    return offset % width == 0;
  // A reshape keeps its source's offset (a layer's bias row split by heads).
  if (auto expand = buffer.getDefiningOp<memref::ExpandShapeOp>())
    return offsetAligned(expand.getSrc(), width);
  if (auto collapse = buffer.getDefiningOp<memref::CollapseShapeOp>())
    return offsetAligned(collapse.getSrc(), width);
  // A slice at a position known only when the code runs (a layer's row of
  // a stacked parameter's accumulator): aligned when the source is and each
  // dynamic position steps by a multiple of W elements.
  auto slice = buffer.getDefiningOp<memref::SubViewOp>();
  if (!slice)
    return false;
  auto sourceType = cast<MemRefType>(slice.getSource().getType());
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset;
  if (failed(sourceType.getStridesAndOffset(sourceStrides, sourceOffset)) ||
      !offsetAligned(slice.getSource(), width))
    return false;
  for (auto [position, stride] : llvm::zip(slice.getMixedOffsets(), sourceStrides)) {
    if (ShapedType::isDynamic(stride))
      return false;
    std::optional<int64_t> known = getConstantIntValue(position);
    if ((known ? *known * stride : stride) % width)
      return false;
  }
  return true;
}

bool vectorizableBody(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (isa<linalg::IndexOp>(op))
      continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) || op.getNumRegions())
      return false;
    for (Type t : op.getResultTypes())
      if (!t.isIntOrIndexOrFloat())
        return false;
  }
  return true;
}

Value chunkPositions(IRRewriter &rewriter, Location loc, Value first, int64_t width) {
  auto type = VectorType::get({width}, rewriter.getIndexType());
  SmallVector<APInt> offsets; // a constant: vector.step has no NVVM lowering
  for (int64_t e = 0; e < width; ++e)
    offsets.push_back(APInt(IndexType::kInternalStorageBitWidth, e));
  Value step = arith::ConstantOp::create(rewriter, loc, DenseElementsAttr::get(type, offsets));
  Value start = vector::BroadcastOp::create(rewriter, loc, type, first);
  return arith::AddIOp::create(rewriter, loc, start, step);
}

Value loadChunk(IRRewriter &rewriter, Location loc, Value buffer, ValueRange at,
                VectorAccess access, int64_t width) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  auto type = VectorType::get({width}, element);
  if (access == VectorAccess::Vector)
    return vector::LoadOp::create(rewriter, loc, type, buffer, at, /*nontemporal=*/false,
                                  vectorAlignment(element, width));
  Value scalar = memref::LoadOp::create(rewriter, loc, buffer, at);
  return vector::BroadcastOp::create(rewriter, loc, type, scalar);
}

SmallVector<Value> cloneBodyOnVectors(IRRewriter &rewriter, Location loc, Block &body,
                                      IRMapping &mapping, int64_t width,
                                      llvm::function_ref<Value(unsigned)> positions) {
  auto vectorOf = [&](Type element) { return VectorType::get({width}, element); };
  for (Operation &inner : body.without_terminator()) {
    if (auto position = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(position.getResult(), positions(position.getDim()));
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      auto splat = DenseElementsAttr::get(vectorOf(constant.getType()), constant.getValue());
      mapping.map(constant.getResult(),
                  arith::ConstantOp::create(rewriter, loc, vectorOf(constant.getType()), splat));
      continue;
    }
    // A scalar from outside the body (a hyperparameter) is the same in
    // every lane.
    for (Value operand : inner.getOperands())
      if (!mapping.contains(operand) && operand.getParentBlock() != &body)
        mapping.map(operand, vector::BroadcastOp::create(rewriter, loc, vectorOf(operand.getType()),
                                                         operand));
    Operation *copy = rewriter.clone(inner, mapping);
    for (OpResult result : copy->getResults())
      result.setType(vectorOf(result.getType()));
  }
  SmallVector<Value> results;
  for (Value yielded : body.getTerminator()->getOperands()) {
    Value value = mapping.lookupOrDefault(yielded);
    if (!isa<VectorType>(value.getType())) // the body passes a scalar through
      value = vector::BroadcastOp::create(rewriter, loc, vectorOf(value.getType()), value);
    results.push_back(value);
  }
  return results;
}

scf::ParallelOp vectorizeElementwise(IRRewriter &rewriter, linalg::GenericOp op,
                                     int64_t vectorBytes) {
  if (vectorBytes <= 0 || !op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops() || !vectorizableBody(*op.getBlock()))
    return nullptr;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return nullptr;
  // W elements of the widest type among the operands read at every element
  // fill `vectorBytes`. A broadcast operand (a bias, repeated down the rows)
  // is small and cached: an f32 bias cast inside a bf16 kernel reads two
  // vectors a chunk rather than halving every other access.
  unsigned innermost = op.getNumLoops() - 1;
  auto widestOf = [&](bool wholeOnly) {
    int64_t widest = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      auto t = dyn_cast<MemRefType>(operand.get().getType());
      if (t && map.isFunctionOfDim(innermost) &&
          (!wholeOnly || map.getNumResults() == op.getNumLoops()))
        widest = std::max<int64_t>(widest, t.getElementTypeBitWidth() / 8);
    }
    return widest;
  };
  int64_t widest = widestOf(/*wholeOnly=*/true);
  if (widest == 0)
    widest = widestOf(/*wholeOnly=*/false);
  if (widest == 0 || vectorBytes % widest)
    return nullptr;
  int64_t width = vectorBytes / widest;
  if (width < 2 || ranges[innermost] % width)
    return nullptr;
  SmallVector<VectorAccess> access;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<VectorAccess> a = vectorAccessOf(operand.get(), map, innermost, width);
    bool isOutput = op.isDpsInit(&operand);
    if (!a || (isOutput && (*a != VectorAccess::Vector || !map.isIdentity())))
      return nullptr;
    access.push_back(*a);
  }

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  auto chunks = scf::ParallelOp::create(rewriter, loc, ValueRange{index(0)},
                                        ValueRange{index(total / width)}, ValueRange{index(1)});
  rewriter.setInsertionPointToStart(chunks.getBody());
  // The chunk's first element, as loop indices (row-major).
  Value rest = arith::MulIOp::create(rewriter, loc, chunks.getInductionVars()[0], index(width));
  SmallVector<Value> ivs(ranges.size());
  for (int64_t d = static_cast<int64_t>(ranges.size()) - 1; d >= 0; --d) {
    Value size = index(ranges[d]);
    ivs[d] = d ? arith::RemUIOp::create(rewriter, loc, rest, size).getResult() : rest;
    if (d)
      rest = arith::DivUIOp::create(rewriter, loc, rest, size);
  }
  auto vectorOf = [&](Type element) { return VectorType::get({width}, element); };

  IRMapping mapping;
  Block &body = *op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> at;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      at.push_back(ivs[map.getDimPosition(r)]);
    Value value =
        loadChunk(rewriter, loc, operand.get(), at, access[operand.getOperandNumber()], width);
    mapping.map(arg, value);
  }
  Value innermostPositions; // made when the body reads them
  SmallVector<Value> results =
      cloneBodyOnVectors(rewriter, loc, body, mapping, width, [&](unsigned d) -> Value {
        if (d != innermost)
          return vector::BroadcastOp::create(rewriter, loc, vectorOf(rewriter.getIndexType()),
                                             ivs[d]);
        if (!innermostPositions)
          innermostPositions = chunkPositions(rewriter, loc, ivs[d], width);
        return innermostPositions;
      });
  for (auto [value, output] : llvm::zip(results, op.getDpsInits())) {
    Type element = cast<MemRefType>(output.getType()).getElementType();
    vector::StoreOp::create(rewriter, loc, value, output, ivs, /*nontemporal=*/false,
                            vectorAlignment(element, width));
  }
  rewriter.eraseOp(op);
  return chunks;
}

} // namespace mt
