//===- Lowerings.h - the per-op lowerings of mt-lower-to-linalg -*- C++ -*-===//
//
// Each op family's file registers one conversion pattern per op
// (populate*LoweringPatterns); the pass applies them all with a
// ConversionTarget that makes the mt dialect illegal.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H
#define MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H

#include "LinalgBuilder.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace mt {

/// The replacement values of an op; failure after a diagnostic.
using Lowered = mlir::FailureOr<llvm::SmallVector<mlir::Value>>;

/// Gives the ops built for `op` (those between `before` and it) the name of
/// `op` ("layer_norm_grad") around their location, so the kernels made of
/// them can be named after it (mt-describe-kernels) and profiles say what ran.
void nameAfter(mlir::Operation *op, mlir::Operation *before);

/// Lowers one op of type OpTy with `lower`, which builds the replacement at
/// the op with a LinalgBuilder. The pass runs without rollback, so when a
/// pattern runs, every op before it is already lowered and its operands are
/// the lowered values.
template <typename OpTy> class LoweringPattern : public mlir::OpConversionPattern<OpTy> {
public:
  using LowerFn = std::function<Lowered(OpTy, LinalgBuilder &)>;

  LoweringPattern(mlir::MLIRContext *context, LowerFn lower)
      : mlir::OpConversionPattern<OpTy>(context), lower(std::move(lower)) {}

  mlir::LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                      mlir::ConversionPatternRewriter &rewriter) const override {
    mlir::Operation *before = op->getPrevNode();
    LinalgBuilder lb(rewriter, op.getLoc());
    Lowered values = lower(op, lb);
    if (mlir::failed(values))
      return mlir::failure();
    nameAfter(op, before);
    rewriter.replaceOp(op, *values);
    return mlir::success();
  }

private:
  LowerFn lower;
};

/// Registers `lower` as the lowering of OpTy.
template <typename OpTy>
void addLowering(mlir::RewritePatternSet &patterns, typename LoweringPattern<OpTy>::LowerFn lower) {
  patterns.add<LoweringPattern<OpTy>>(patterns.getContext(), std::move(lower));
}

/// The op families. Norms, softmax and cross-entropy: one loop nest over
/// rows each.
void populateRowLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Embeddings, linears, GeLU, dropout, adds, splits and every
/// PointwiseOpInterface op.
void populateNNLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateAttentionLoweringPatterns(mlir::RewritePatternSet &patterns);
/// mt.fused_attention and its gradient: row kernels over key/query tiles,
/// or (`tiled`, f32/f64) tiles of rows whose products are matrix products.
void populateFusedAttentionLoweringPatterns(mlir::RewritePatternSet &patterns, bool tiled,
                                            bool mma = false);
void populateRelativePositionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTensorLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateGradLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateOptimizerLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Collectives (runtime calls), mesh coordinates and the vocab-parallel loss.
void populateParallelLoweringPatterns(mlir::RewritePatternSet &patterns);

/// Shared pieces.
/// -infinity.
double negInf();

/// `source` written into `dest` at `offsets` (tensor.insert_slice, unit strides).
mlir::Value insertSlice(LinalgBuilder &lb, mlir::Value source, mlir::Value dest,
                        llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes);

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_LOWERINGS_H
