//===- MTShardOps.cpp - verifiers of axis_index, vary, shard_slice ---------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

bool mt::detail::isIndexScalar(Value v) {
  auto t = tensorType(v);
  return t.getRank() == 0 && t.getElementType().isInteger(64);
}

bool mt::detail::isPositionOperand(Value v, std::optional<int64_t> batch) {
  auto t = tensorType(v);
  if (isIndexScalar(v))
    return true;
  return batch && t.getRank() == 1 && t.getElementType().isInteger(64) &&
         dimsAgree(t.getDimSize(0), *batch);
}

LogicalResult AxisIndexOp::verify() {
  if (!isIndexScalar(getResult()))
    return violates(*this, 3) << "the result must be tensor<i64>, got " << getResult().getType();
  return success();
}

LogicalResult AxisIndexOp::verifySymbolUses(SymbolTableCollection &symbols) {
  MeshOp mesh = lookupMesh(*this, getMeshAttr(), symbols, 1);
  if (!mesh)
    return failure();
  if (!mesh.getAxisSize(getAxis()))
    return violates(*this, 2) << "mesh " << getMeshAttr() << " has no axis '" << getAxis() << "'";
  return success();
}

LogicalResult VaryOp::verify() { return verifyAxisList(*this, getAxes(), 2); }

LogicalResult VaryOp::verifySymbolUses(SymbolTableCollection &symbols) {
  MeshOp mesh = lookupMesh(*this, getMeshAttr(), symbols, 1);
  if (!mesh)
    return failure();
  for (Attribute a : getAxes())
    if (!mesh.getAxisSize(cast<StringAttr>(a).getValue()))
      return violates(*this, 2) << "mesh " << getMeshAttr() << " has no axis " << a;
  return success();
}

/// C1-C4 of shard_slice (whole -> piece) and shard_slice_grad (piece -> whole).
static LogicalResult verifyShardPiece(Operation *op, Value wholeValue, Value pieceValue,
                                      Value index, int64_t dim, int64_t parts) {
  auto whole = tensorType(wholeValue), piece = tensorType(pieceValue);
  if (dim < 0 || dim >= whole.getRank())
    return violates(op, 1) << "dim " << dim << " is outside rank " << whole.getRank();
  int64_t size = whole.getDimSize(dim);
  if (parts < 1 || (!ShapedType::isDynamic(size) && size % parts != 0))
    return violates(op, 2) << "dimension " << dim << " of size " << size << " does not split into "
                           << parts << " equal pieces";
  SmallVector<int64_t> expected(whole.getShape());
  if (!ShapedType::isDynamic(size))
    expected[dim] = size / parts;
  if (!shapesAgree(piece.getShape(), expected) || piece.getElementType() != whole.getElementType())
    return violates(op, 3) << "the piece must be " << shapeStr(expected) << " of "
                           << whole.getElementType() << ", got " << piece;
  if (!isIndexScalar(index))
    return violates(op, 4) << "the index must be tensor<i64>, got " << index.getType();
  return success();
}

LogicalResult ShardSliceOp::verify() {
  return verifyShardPiece(*this, getInput(), getResult(), getIndex(), getDimAttr().getInt(),
                          getPartsAttr().getInt());
}

LogicalResult ShardSliceGradOp::verify() {
  return verifyShardPiece(*this, getResult(), getGrad(), getIndex(), getDimAttr().getInt(),
                          getPartsAttr().getInt());
}
