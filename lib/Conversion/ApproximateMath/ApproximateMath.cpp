//===- ApproximateMath.cpp - f32 exp, log, tanh, erf as inline polynomials -===//
//
// On the CPU a math op left to convert-math-to-libm is a call into libm per
// element: on a small GPT the softmax's exp and GeLU's tanh took a third of
// the step on the main thread while the BLAS threads waited. MLIR's
// polynomial approximations (about an ulp or two in f32, infinities and
// NaN kept) are plain arithmetic, inlined and vectorizable. Only f32 is
// rewritten: f64 (gradient checks) keeps libm's exactly rounded results.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

namespace mt {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

struct ApproximateMathPass : mt::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;
  void runOnOperation() override {
    // The ops a training step uses; sin and cos (rotary tables) are left to
    // libm, whose range reduction is exact for any angle.
    static const llvm::StringSet<> approximated = {
        math::ExpOp::getOperationName(),  math::ExpM1Op::getOperationName(),
        math::LogOp::getOperationName(),  math::Log1pOp::getOperationName(),
        math::Log2Op::getOperationName(), math::TanhOp::getOperationName(),
        math::ErfOp::getOperationName()};
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return approximated.contains(name); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
