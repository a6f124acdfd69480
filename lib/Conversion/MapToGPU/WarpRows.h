//===- WarpRows.h - a row kernel's rows on warps, its columns on lanes -*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MAPTOGPU_WARPROWS_H
#define MT_LIB_CONVERSION_MAPTOGPU_WARPROWS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mt {

/// Lanes of a warp (NVIDIA).
inline constexpr int64_t kWarpSize = 32;

/// Loops for `count` warps, `warpsPerBlock` to a block: an scf.parallel over
/// blocks (block x) holding one over (warp, lane) in [0, warpsPerBlock) x
/// [0, 32) (thread y, thread x). The rewriter is left at the start of the
/// lanes' body; a warp's index is block + warp, which may reach past
/// `count` in the last block.
std::pair<mlir::scf::ParallelOp, mlir::scf::ParallelOp> buildWarpLoops(mlir::IRRewriter &rewriter,
                                                                       mlir::Location loc,
                                                                       mlir::Value count,
                                                                       int64_t warpsPerBlock);

/// Maps a row kernel (`rowLoop`: an scf.for marked mt.independent_iterations
/// whose body walks the row with loops marked mt.along_row) onto warps: one
/// row per warp, `rowsPerBlock` warps per block. Each along-row loop starts
/// at the lane and steps by the warp size, so neighbouring lanes touch
/// neighbouring elements; the sums and maxima it carries are combined
/// across the warp with `gpu.subgroup_reduce` (in a fixed order, so the
/// result does not change from run to run). Returns false, changing
/// nothing, when the body does not have that form: a carried scalar that is
/// not a sum or maximum starting from its identity, an along-row loop inside
/// other control flow, or an access that would read what another lane
/// wrote. With `vectorBytes`, each lane takes that many bytes of neighbouring
/// columns at a time where the loop allows it (vectorizeAlongRow). With
/// `rowRegisterChunks` > 0, a lane's chunks of a row that fits that many a
/// lane are loaded once (keepRowInRegisters).
bool mapRowsToWarps(mlir::IRRewriter &rewriter, mlir::scf::ForOp rowLoop, int64_t rowsPerBlock,
                    int64_t vectorBytes, int64_t rowRegisterChunks);

} // namespace mt

#endif // MT_LIB_CONVERSION_MAPTOGPU_WARPROWS_H
