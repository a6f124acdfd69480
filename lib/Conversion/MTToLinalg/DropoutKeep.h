//===- DropoutKeep.h - the keep decision of every dropout kernel -*- C++ -*-===//
//
// mt.dropout, mt.dropout_mask, mt.bias_dropout_add and the fused attention
// kernel draw one mask from one rule, so a fused kernel drops exactly the
// elements the unfused ops would: keep = hash(key + global position) >=
// rate, with the key built from the seed, stream and layer, and positions
// counted in the whole (unsharded) tensor.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_DROPOUTKEEP_H
#define MT_LIB_CONVERSION_MTTOLINALG_DROPOUTKEEP_H

#include "LinalgBuilder.h"

#include <optional>

namespace mt {

/// splitmix64 on i64 values (wrap-around arithmetic).
mlir::Value splitmix(mlir::OpBuilder &b, mlir::Location l, mlir::Value x);

/// The argument marked mt.layer_offset of the function around `op`, or null.
mlir::Value layerOffsetOf(mlir::Operation *op);

/// What a dropout site's mask depends on, read off the op.
struct DropoutKey {
  mlir::Value seed;  ///< tensor<i64>, or null for seed 0
  mlir::Value shard; ///< tensor<i64> shard index, or null
  /// tensor<i64> added to `layer`: the function's argument marked
  /// mt.layer_offset (mt-share-stage-programs), or null.
  mlir::Value layerOffset;
  double rate = 0;
  int64_t stream = 0;
  std::optional<int64_t> layer;
  int64_t shardDim = -1, shardParts = 1;

  template <typename DropoutLike> static DropoutKey of(DropoutLike op) {
    DropoutKey k;
    k.seed = op.getSeed();
    k.shard = op.getShard();
    k.rate = op.getRate().convertToDouble();
    k.stream = op.getStreamAttr().getInt();
    if (op.getLayerAttr()) {
      k.layer = op.getLayerAttr().getInt();
      k.layerOffset = layerOffsetOf(op);
    }
    if (op.getShard()) {
      k.shardDim = op.getShardDimAttr().getInt();
      k.shardParts = op.getShardPartsAttr().getInt();
    }
    return k;
  }
};

/// The keep decision at one element of a tensor of `shape` (the local piece
/// when sharded). Build it once outside the loop nest; call keepAt inside.
class DropoutKeep {
public:
  DropoutKeep(const DropoutKey &key, llvm::ArrayRef<int64_t> shape, LinalgBuilder &lb);

  /// The i1 keep decision at local position `indices` (i64 or index values).
  mlir::Value keepAt(mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange indices) const;
  /// Inside a linalg.generic over the tensor: keepAt the loop indices.
  mlir::Value keep(mlir::OpBuilder &nb, mlir::Location l) const;

  double rate = 0;

private:
  LinalgBuilder &lb;
  unsigned rank;
  mlir::Value key, shardOffset;
  int64_t shardDim = -1;
  llvm::SmallVector<int64_t> strides;
};

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_DROPOUTKEEP_H
