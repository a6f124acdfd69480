//===- MmaAttention.h - which attentions the tensor-core kernel takes -*- C++ -*-===//
//
// One rule, shared by mt-fuse-attention (which fuses only these under
// --gpu-attention=mma) and the lowering (which emits the warp-MMA kernels
// for them), so the two cannot disagree (docs/attention-gpu-design.md §1).
//
//===----------------------------------------------------------------------===//
#ifndef MT_TRANSFORMS_MMAATTENTION_H
#define MT_TRANSFORMS_MMAATTENTION_H

#include "mlir/IR/BuiltinTypes.h"

namespace mt {

/// Rows of a warp task (one m16n8k16 tile's M) and the MMA's K.
inline constexpr int64_t kMmaRows = 16;

/// Whether attention over q `[B, Hq, Sq, D]` and k `[B, Hkv, Sk, D]` runs on
/// the tensor-core kernels: 16-bit elements (bf16 or f16, f32 accumulators),
/// static shapes, a head dim of 16 to 128 in steps of 16, and query and key
/// counts that are multiples of 16.
inline bool mmaAttentionShape(mlir::RankedTensorType query, mlir::RankedTensorType key) {
  if (!query || !key || !query.hasStaticShape() || !key.hasStaticShape() ||
      query.getRank() != 4 || key.getRank() != 4)
    return false;
  mlir::Type element = query.getElementType();
  int64_t d = query.getDimSize(3);
  return (element.isBF16() || element.isF16()) && d % kMmaRows == 0 && d >= kMmaRows &&
         d <= 128 && query.getDimSize(2) % kMmaRows == 0 && key.getDimSize(2) % kMmaRows == 0;
}

} // namespace mt

#endif // MT_TRANSFORMS_MMAATTENTION_H
