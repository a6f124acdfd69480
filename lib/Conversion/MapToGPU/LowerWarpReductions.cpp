//===- LowerWarpReductions.cpp - warp sums and maxima as shuffles ---------===//
//
// convert-gpu-to-nvvm turns only integer gpu.subgroup_reduce into
// redux.sync; the f32 sums and maxima of a warp-per-row kernel
// (mt-map-to-gpu) become a butterfly of shuffles here, whose order of
// combination is fixed, so the result is the same on every run.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mt {
#define GEN_PASS_DEF_LOWERWARPREDUCTIONSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

struct LowerWarpReductionsPass : mt::impl::LowerWarpReductionsPassBase<LowerWarpReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (warpSize < 1 || (warpSize & (warpSize - 1))) {
      getOperation().emitError("mt-lower-warp-reductions: warp-size must be a power of two");
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, warpSize, /*shuffleBitwidth=*/32);
    // Sums over clusters of lanes (a quad holding one row of an MMA fragment).
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(patterns, warpSize,
                                                             /*shuffleBitwidth=*/32);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation().walk([](gpu::SubgroupReduceOp op) {
      op.emitError("mt-lower-warp-reductions: cannot lower this warp reduction to shuffles "
                   "(a non-uniform one, a vector, or an element type wider than 32 bits)");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
