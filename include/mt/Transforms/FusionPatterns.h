//===- FusionPatterns.h - the op fusions as rewrite patterns ---*- C++ -*-===//
//
// Each fusion pass applies one of these sets; a pipeline may combine them.
// They keep results bit-identical: the fused op computes the same
// operations in the same order as the ops it replaces. The one exception is
// attention, whose online softmax sums in another order (results agree to
// rounding).
//
//===----------------------------------------------------------------------===//
#ifndef MT_TRANSFORMS_FUSIONPATTERNS_H
#define MT_TRANSFORMS_FUSIONPATTERNS_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mt {

/// A biased linear read only by a GeLU -> linear + mt.bias_gelu.
void populateFuseBiasGeluPatterns(mlir::RewritePatternSet &patterns);
/// residual + dropout(x + bias) -> mt.bias_dropout_add.
void populateFuseBiasDropoutAddPatterns(mlir::RewritePatternSet &patterns);
/// A residual add whose sum a layer norm reads -> mt.add_layer_norm.
void populateFuseAddLayerNormPatterns(mlir::RewritePatternSet &patterns);

/// scores -> softmax -> (dropout) -> context (-> merge_heads) ->
/// mt.fused_attention, over at least `minKeys` keys, in tiles of `blockKeys`
/// (`wideOnly`: f32/f64 attention only; `mmaShapesOnly`: only what the
/// GPU's tensor-core kernels take, mmaAttentionShape).
void populateFuseAttentionPatterns(mlir::RewritePatternSet &patterns, int64_t minKeys = 0,
                                   int64_t blockKeys = 64, bool wideOnly = false,
                                   bool mmaShapesOnly = false);

/// Applies fusion patterns to `root` in program order, to a fixpoint,
/// without folding, constant CSE or region simplification: the IR changes
/// only where a pattern fires.
mlir::LogicalResult applyFusionPatterns(mlir::Operation *root,
                                        const mlir::FrozenRewritePatternSet &patterns);

/// Copies the discardable attributes of `from` (mt.layer, mt.backward, ...)
/// onto `to`, which replaces it.
void carryAttributes(mlir::Operation *from, mlir::Operation *to);

} // namespace mt

#endif // MT_TRANSFORMS_FUSIONPATTERNS_H
