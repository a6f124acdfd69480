//===- VerifyHelpers.h - shared pieces of the mt op verifiers --*- C++ -*-===//
//
// Verifier messages cite the constraint of docs/spec.md they enforce:
//   'mt.linear' op violates C2: ...
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_DIALECT_MT_IR_VERIFYHELPERS_H
#define MT_LIB_DIALECT_MT_IR_VERIFYHELPERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace mt::detail {

/// Starts an error that cites constraint `c` of the op's spec entry.
inline mlir::InFlightDiagnostic violates(mlir::Operation *op, unsigned c) {
  return op->emitOpError() << "violates C" << c << ": ";
}

/// Two dimension sizes agree unless both are static and differ (upstream's
/// compatibility rule, as a bool for the verifiers' conditions).
inline bool dimsAgree(int64_t a, int64_t b) {
  return mlir::succeeded(mlir::verifyCompatibleDims({a, b}));
}

inline bool shapesAgree(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  return mlir::succeeded(mlir::verifyCompatibleShape(a, b));
}

/// The shape the op's shape-inference rule gives result `i`.
template <typename OpT> llvm::SmallVector<int64_t> inferredShape(OpT op, unsigned i = 0) {
  return llvm::SmallVector<int64_t>(
      llvm::cast<mlir::RankedTensorType>(op.inferResultTypes()[i]).getShape());
}

/// Same element type and agreeing shapes (`?` agrees with any size).
inline bool typesAgree(mlir::Type a, mlir::Type b) {
  auto ta = llvm::cast<mlir::RankedTensorType>(a), tb = llvm::cast<mlir::RankedTensorType>(b);
  return ta.getElementType() == tb.getElementType() && shapesAgree(ta.getShape(), tb.getShape());
}

/// A type as text without the quotes diagnostics add: "tensor<f32>".
inline std::string typeStr(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// "8x?x768" for messages.
inline std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += "x";
    s += mlir::ShapedType::isDynamic(shape[i]) ? "?" : std::to_string(shape[i]);
  }
  return s;
}

inline mlir::RankedTensorType tensorType(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

inline bool isFloatTensor(mlir::Value v) {
  return isSupportedFloatType(tensorType(v).getElementType());
}

inline bool isIntegerTensor(mlir::Value v) {
  auto i = llvm::dyn_cast<mlir::IntegerType>(tensorType(v).getElementType());
  return i && i.isSignless() && (i.getWidth() == 32 || i.getWidth() == 64);
}

/// C3 and C4 of mt.relative_position_bias and its gradient: the bucket
/// count and max_distance (a dynamic count is checked later).
mlir::LogicalResult verifyRelativeBuckets(mlir::Operation *op, int64_t numBuckets,
                                          bool bidirectional, int64_t maxDistance);

} // namespace mt::detail

#endif // MT_LIB_DIALECT_MT_IR_VERIFYHELPERS_H

#include "mlir/IR/SymbolTable.h"
#include "mt/Sharding/MeshShape.h"

namespace mt {
class MeshOp;
namespace detail {

/// Resolves `mesh` from `op`, or emits "violates C<c>: ... does not name an
/// mt.mesh" and returns null.
MeshOp lookupMesh(mlir::Operation *op, mlir::FlatSymbolRefAttr mesh,
                  mlir::SymbolTableCollection &symbols, unsigned c);

/// The mesh's geometry as plain C++.
MeshShape meshShapeOf(MeshOp mesh);

/// C1-C3 of the norms and their gradients: a float input of rank >= 1,
/// scale/shift `[features]` of its element type, epsilon > 0.
mlir::LogicalResult verifyNorm(mlir::Operation *op, mlir::Value input, mlir::ValueRange affine,
                               double epsilon);

/// C1 (logits), C2 (labels), C3 (loss mask) and C5 (num_classes) shared by
/// mt.cross_entropy and mt.cross_entropy_grad.
mlir::LogicalResult verifyCrossEntropyOperands(mlir::Operation *op, mlir::Value logits,
                                               mlir::Value labels, mlir::Value mask,
                                               mlir::IntegerAttr numClasses);

/// A tensor<i64> scalar: a seed or a mesh coordinate.
bool isIndexScalar(mlir::Value v);

/// A run-time position: tensor<i64>, or tensor<Bxi64> (one per row of a
/// ragged batch) where `batch` (or null: no batch) agrees with B.
bool isPositionOperand(mlir::Value v, std::optional<int64_t> batch);

/// C1-C4 shared by the vocab-parallel loss ops: float logits [..., V], a
/// tensor<i64> shard index, labels of logits.shape[:-1], and per-token
/// statistics of the labels' shape and the logits' element type.
mlir::LogicalResult verifyVocabParallelOperands(mlir::Operation *op, mlir::Value logits,
                                                mlir::Value shard, mlir::Value labels,
                                                mlir::ValueRange perToken);

/// C2-C7 of mt.dropout, mt.dropout_mask, mt.bias_dropout_add and the fused
/// attention ops: the key and the shard (`shape`: the dropped tensor's).
template <typename DropoutLike>
mlir::LogicalResult verifyDropoutKey(DropoutLike op, mlir::RankedTensorType shape) {
  double rate = op.getRate().convertToDouble();
  if (!(rate >= 0.0 && rate < 1.0))
    return violates(op, 2) << "rate must be in [0, 1), got " << rate;
  if (op.getSeed()) {
    auto seed = tensorType(op.getSeed());
    if (seed.getRank() != 0 || !seed.getElementType().isInteger(64))
      return violates(op, 3) << "the seed must be tensor<i64>, got " << seed;
  }
  int64_t stream = op.getStreamAttr().getInt();
  if (stream < 0)
    return violates(op, 4) << "stream must be >= 0, got " << stream;
  if (op.getLayerAttr() && op.getLayerAttr().getInt() < 0)
    return violates(op, 5) << "layer must be >= 0, got " << op.getLayerAttr().getInt();
  bool any = op.getShard() || op.getShardDimAttr() || op.getShardPartsAttr();
  bool all = op.getShard() && op.getShardDimAttr() && op.getShardPartsAttr();
  if (any && (!all || !isIndexScalar(op.getShard())))
    return violates(op, 6) << "shard (a tensor<i64>), shard_dim and shard_parts come together";
  if (all) {
    int64_t dim = op.getShardDimAttr().getInt(), parts = op.getShardPartsAttr().getInt();
    if (dim < 0 || dim >= shape.getRank() || parts < 1)
      return violates(op, 7) << "shard_dim " << dim << " must be a dimension of the rank-"
                             << shape.getRank() << " input and shard_parts " << parts << " >= 1";
  }
  return mlir::success();
}

/// Checks a list of group axes: non-empty and no repeats (constraint `c`).
mlir::LogicalResult verifyAxisList(mlir::Operation *op, mlir::ArrayAttr axes, unsigned c);

} // namespace detail
} // namespace mt
