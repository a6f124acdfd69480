//===- Placement.h - what of a function runs on the host, what on the GPU -===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_PLACEMENT_H
#define MT_LIB_CONVERSION_MAPTOGPU_PLACEMENT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Runs `op` as it is, in order, on one GPU thread.
void launchSingleThread(mlir::IRRewriter &rewriter, mlir::Operation *op);

/// After the loop nests of `fn` became kernels (top-level `scf.parallel`
/// and `gpu.launch`), moves every remaining read or write of a buffer off
/// the host, since buffers live in device memory:
/// - scalar loads of buffers the function never writes (hyperparameters, a
///   dropout seed), and pure arithmetic on them, are repeated inside each
///   kernel that uses them;
/// - every other run of top-level work on buffers (a loss summed in order,
///   a scalar stored) becomes one single-thread kernel; a scalar it computes
///   for later kernels goes through a 0-d buffer (`memref.alloc`, placed in
///   the arena by mt-plan-buffers);
/// - loads of constant scalar globals fold to constants.
/// Fails, with the op named, where the host itself would need a value the
/// device computes (a library call's argument).
mlir::LogicalResult placeOnDevice(mlir::func::FuncOp fn, mlir::IRRewriter &rewriter);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_PLACEMENT_H
