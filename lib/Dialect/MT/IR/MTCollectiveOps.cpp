//===- MTCollectiveOps.cpp - verifiers of the collectives ------------------===//
//
// Mesh-independent checks run in verify(); checks against the named mesh run
// in verifySymbolUses, where the symbol table is at hand.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"

#include <algorithm>

using namespace mlir;
using namespace mt;
using namespace mt::detail;

static std::vector<std::string> toStrings(ArrayAttr axes) {
  std::vector<std::string> out;
  for (Attribute a : axes)
    out.push_back(cast<StringAttr>(a).str());
  return out;
}

static SmallVector<StringRef> toRefs(ArrayAttr axes) {
  SmallVector<StringRef> out;
  for (Attribute a : axes)
    out.push_back(cast<StringAttr>(a).getValue());
  return out;
}

/// C1 (the mesh exists) and C2 (every group axis is one of its axes).
/// Returns the mesh geometry, or nullopt after reporting.
static std::optional<MeshShape> verifyGroup(Operation *op, FlatSymbolRefAttr meshRef,
                                            ArrayAttr axes, SymbolTableCollection &symbols) {
  MeshOp mesh = lookupMesh(op, meshRef, symbols, 1);
  if (!mesh)
    return std::nullopt;
  MeshShape shape = meshShapeOf(mesh);
  for (const std::string &axis : toStrings(axes))
    if (!shape.axisSize(axis)) {
      violates(op, 2) << "mesh " << meshRef << " has no axis '" << axis << "'";
      return std::nullopt;
    }
  return shape;
}

/// C3 (dim is in range) and C4 (the result is the input with `dim` scaled)
/// for all_gather (grow = true) and reduce_scatter (grow = false).
static LogicalResult verifyResize(Operation *op, Value inputValue, Value resultValue, int64_t dim,
                                  int64_t groupSize, bool grow) {
  auto input = tensorType(inputValue), result = tensorType(resultValue);
  if (dim < 0 || dim >= input.getRank())
    return violates(op, 3) << "dim " << dim << " is outside rank " << input.getRank();
  SmallVector<int64_t> expected(input.getShape());
  int64_t size = expected[dim];
  if (!ShapedType::isDynamic(size) && groupSize > 0) {
    if (grow) {
      expected[dim] = size * groupSize;
    } else if (auto shard = shardSize(size, groupSize)) {
      expected[dim] = *shard;
    } else {
      return violates(op, 4) << "dimension " << dim << " of size " << size
                             << " does not split evenly over " << groupSize << " ranks";
    }
  }
  if (!shapesAgree(result.getShape(), expected) ||
      result.getElementType() != input.getElementType())
    return violates(op, 4) << "over a group of " << groupSize << " ranks the result must be "
                           << shapeStr(expected) << " of " << input.getElementType() << ", got "
                           << result;
  return success();
}

//===----------------------------------------------------------------------===//
// all_reduce, all_gather, reduce_scatter
//===----------------------------------------------------------------------===//

SmallVector<StringRef> AllReduceOp::getGroupAxes() { return toRefs(getAxes()); }
SmallVector<StringRef> AllGatherOp::getGroupAxes() { return toRefs(getAxes()); }
SmallVector<StringRef> ReduceScatterOp::getGroupAxes() { return toRefs(getAxes()); }

/// The larger of `op`'s input and result, in bytes.
static int64_t largerSideBytes(Value input, Value result) {
  auto bytes = [](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    return t.getNumElements() * std::max<int64_t>(bits / 8, 1);
  };
  return std::max(bytes(input), bytes(result));
}

int64_t AllReduceOp::getGroupTrafficBytes() { return largerSideBytes(getInput(), getResult()); }
int64_t AllGatherOp::getGroupTrafficBytes() { return largerSideBytes(getInput(), getResult()); }
int64_t ReduceScatterOp::getGroupTrafficBytes() { return largerSideBytes(getInput(), getResult()); }

LogicalResult AllReduceOp::verify() { return verifyAxisList(*this, getAxes(), 2); }
LogicalResult AllGatherOp::verify() { return verifyAxisList(*this, getAxes(), 2); }
LogicalResult ReduceScatterOp::verify() { return verifyAxisList(*this, getAxes(), 2); }

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return success(verifyGroup(*this, getMeshAttr(), getAxes(), symbols).has_value());
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto mesh = verifyGroup(*this, getMeshAttr(), getAxes(), symbols);
  if (!mesh)
    return failure();
  return verifyResize(*this, getInput(), getResult(), getDimAttr().getInt(),
                      mesh->groupSize(toStrings(getAxes())), /*grow=*/true);
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto mesh = verifyGroup(*this, getMeshAttr(), getAxes(), symbols);
  if (!mesh)
    return failure();
  return verifyResize(*this, getInput(), getResult(), getDimAttr().getInt(),
                      mesh->groupSize(toStrings(getAxes())), /*grow=*/false);
}

//===----------------------------------------------------------------------===//
// collective_wait
//===----------------------------------------------------------------------===//

LogicalResult CollectiveWaitOp::verify() {
  Operation *def = getPending().getDefiningOp();
  // C1: an all-gather or reduce-scatter of this block starts it.
  if (!def || !isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(def) ||
      def->getBlock() != (*this)->getBlock())
    return violates(*this, 1) << "waits for a value that no mt.all_reduce, mt.all_gather or "
                                 "mt.reduce_scatter of the same block produces";
  // C2: nothing else reads the collective's result before it is complete.
  if (!getPending().hasOneUse())
    return violates(*this, 2) << "the collective's result has other uses than this wait (they "
                                 "could read it before it is complete)";
  return success();
}

//===----------------------------------------------------------------------===//
// send, recv
//===----------------------------------------------------------------------===//

/// C2 (the axis exists), C3 (a peer can exist), C4 (channel >= 0).
static LogicalResult verifyPointToPoint(Operation *op, FlatSymbolRefAttr meshRef, StringRef axis,
                                        int64_t offset, int64_t channel,
                                        SymbolTableCollection &symbols) {
  auto axes = ArrayAttr::get(op->getContext(), {StringAttr::get(op->getContext(), axis)});
  auto mesh = verifyGroup(op, meshRef, axes, symbols);
  if (!mesh)
    return failure();
  int64_t size = *mesh->axisSize(axis.str());
  if (offset == 0 || offset >= size || offset <= -size)
    return violates(op, 3) << "offset " << offset << " must be non-zero and smaller in "
                           << "magnitude than the size " << size << " of axis '" << axis << "'";
  if (channel < 0)
    return violates(op, 4) << "channel must be >= 0, got " << channel;
  return success();
}

SmallVector<StringRef> SendOp::getGroupAxes() { return {getAxis()}; }
SmallVector<StringRef> RecvOp::getGroupAxes() { return {getAxis()}; }

LogicalResult SendOp::verify() { return success(); }
LogicalResult RecvOp::verify() { return success(); }

LogicalResult SendOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyPointToPoint(*this, getMeshAttr(), getAxis(), getOffsetAttr().getInt(),
                            getChannelAttr().getInt(), symbols);
}

LogicalResult RecvOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyPointToPoint(*this, getMeshAttr(), getAxis(), getOffsetAttr().getInt(),
                            getChannelAttr().getInt(), symbols);
}
