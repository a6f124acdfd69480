//===- MmaAttentionTiles.h - per-lane pieces of the tensor-core attention -*- C++ -*-===//
//
// What the tensor-core attention kernels (LowerMmaAttention.cpp: the
// forward; LowerMmaAttentionGrad.cpp: dQ; LowerMmaAttentionKeys.cpp: dK and
// dV) share. A warp task is 16 rows (query rows, or keys for dK and dV) of
// one (batch, head); lane l holds rows g = l / 4 and g + 8 and, in each
// fragment, the k-columns 2t, 2t + 1, 2t + 8 and 2t + 9 (t = l % 4) of
// each 16-wide k-step (the m16n8k16 layouts of mt.warp_mma, docs/spec.md).
//
// Loads are whole groups: a lane's k-columns of one or two k-steps are
// made neighbours in memory by permuting the reduction, the same way for
// both operands of a product (which leaves the product as it is), so a
// lane reads 4 or 8 neighbouring elements in one 8- or 16-byte load
// (groupWidth). Along the head dim that is a fixed permutation of the
// columns. Along keys (the k of P V and dS K), the score n-tiles' columns
// are permuted instead (tileColumn), and the keyed operand is read from a
// transposed copy ([B, H, D, S], transposedRows): no element loads.
// Products come in two shapes: 16 rows x 8 columns of scores (B read from
// rows of a [.., S, D] tensor), and 16 rows x 8 head columns (B read from a
// transposed tensor's rows); the C fragments of two score n-tiles are the A
// fragment of one 16-column k-step.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_MMAATTENTIONTILES_H
#define MT_LIB_CONVERSION_MTTOLINALG_MMAATTENTIONTILES_H

#include "FusedAttentionKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mt {

/// Warps of a block: 4 consecutive tasks of one (batch, head) read the same
/// key and value tiles.
inline constexpr int64_t kMmaWarpsPerBlock = 4;

/// One lane's arithmetic on fragments at one builder position.
struct Fragments {
  Scalar s;
  Index x;
  mlir::Type element; ///< bf16 or f16

  mlir::Value vector(llvm::ArrayRef<mlir::Value> elements, mlir::Type type) const;
  mlir::Value at(mlir::Value v, int64_t i) const;
  /// vector<4xf32> of zeros: a cleared accumulator.
  mlir::Value zeros() const;
  /// `width` neighbouring elements of a 16-bit tensor along its last
  /// dimension, the first at `indices`: one vector read (mapWarpTasks makes
  /// it one aligned load).
  mlir::Value group(mlir::Value tensor, mlir::ValueRange indices, int64_t width) const;
  /// The B fragment of k-step `step` in a lane's group of `width`.
  mlir::Value bFragment(mlir::Value group, int64_t step, int64_t width) const;
  /// The A fragment of k-step `step` from the groups of the lane's two rows.
  mlir::Value aFragment(mlir::Value upper, mlir::Value lower, int64_t step, int64_t width) const;
  mlir::Value mma(mlir::Value a, mlir::Value b, mlir::Value c) const;
  /// The quad's (the 4 lanes holding one row) maximum or sum of `v`.
  mlir::Value quad(mlir::Value v, mlir::gpu::AllReduceOperation kind) const;
  /// 2^v: the kernels' exponentials, with log2(e) folded into the scale
  /// (one ex2 on the GPU, where exp is a polynomial around one).
  mlir::Value exp2(mlir::Value v) const;
};

/// log2(e): scores and log-sum-exps times it are in the base-2 units exp2
/// takes.
inline constexpr double kLog2E = 1.4426950408889634;

/// Elements a lane loads at once along a reduction of `steps` k-steps: 8
/// (its columns of two steps) when `steps` is even, else 4.
inline int64_t groupWidth(int64_t steps) { return steps % 2 ? 4 : 8; }
/// The first element of lane t's group holding k-step `step`, counted from
/// `base` along the reduced dimension.
mlir::Value groupStart(Index x, mlir::Value base, mlir::Value t, int64_t step, int64_t width);
/// Column `2 pair + odd` of score n-tile n, of a tile of `nTiles` n-tiles
/// from `base`: the columns permuted so that lane t's k-columns of each
/// 16-column step are its group (groupStart) of the transposed operand.
mlir::Value tileColumn(Index x, mlir::Value base, int64_t nTiles, int64_t n, mlir::Value pair,
                       mlir::Value odd);
/// A builder of the transposed copies: their kernels are named
/// attention_transpose.
LinalgBuilder transposing(LinalgBuilder &lb);
/// [B, H, S, D] -> [B, H, D, S]: rows read along the reduction of P V.
mlir::Value transposedRows(LinalgBuilder &lb, mlir::Value tensor);

/// Sizes of the warp tasks.
struct TaskShape {
  int64_t queryTiles; ///< 16-row tasks per (batch, head)
  int64_t keyTile;    ///< keys per iteration of the tile loop
  int64_t nTiles;     ///< 8-column n-tiles over the head dim
  int64_t kSteps;     ///< 16-column k-steps over the head dim

  static TaskShape of(const AttentionProblem &p);
  int64_t keyNTiles() const { return keyTile / 8; }
  int64_t keySteps() const { return keyTile / 16; }
};

/// The task's place in the problem and the lane's in the task.
struct TaskRows {
  mlir::Value b, h, kh, g, t;
  mlir::Value first;  ///< the task's first query row
  mlir::Value row[2]; ///< query rows g and g + 8

  /// From the task index (a (batch, head)'s longest rows first under the
  /// causal rule).
  static TaskRows of(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                     mlir::Value task);
  /// The key of element e of score n-tile n in the key tile from j0.
  mlir::Value keyOf(Index x, const TaskShape &shape, mlir::Value j0, int64_t n, int64_t e) const;
  /// Key tiles up to the last key the task's last row sees (the same for
  /// every lane: a uniform loop around the warp's MMAs).
  mlir::Value tiles(Index x, const AttentionProblem &p, const TaskShape &shape) const;
};

/// The A fragments (one per k-step of `steps`) of rows `rows[0..1]` of
/// `tensor`, `at(row, column)` giving an element's indices (the column last).
llvm::SmallVector<mlir::Value>
rowFragments(const Fragments &f, int64_t steps, const mlir::Value (&rows)[2], mlir::Value t,
             mlir::Value tensor,
             llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::Value)> at);

/// Score-shaped products A B^T, `nTiles` n-tiles of columns from `base`
/// (tileColumn): B's rows are those columns' rows of `tensor` (`at(row,
/// column)`, rows past `rows` clamped); C starts at 0.
llvm::SmallVector<mlir::Value>
tileProducts(const Fragments &f, mlir::Value g, mlir::Value t, llvm::ArrayRef<mlir::Value> a,
             int64_t nTiles, mlir::Value base, int64_t rows, mlir::Value tensor,
             llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::Value)> at);

/// acc[c] += W X over the tile from `base`: `weights` holds, per score
/// n-tile, the 4 f32 values of its C fragment (rounded to the element type
/// as the A fragments of the 16-column k-steps); X[k, n] is element (8c + n,
/// column k) of `transposed` (`at(head column, column)`, columns past
/// `columns` clamped: their weights are 0).
void addTransposedProducts(
    const Fragments &f, mlir::Value g, mlir::Value t,
    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> weights, mlir::Value base, int64_t columns,
    mlir::Value transposed,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::Value)> at,
    llvm::SmallVectorImpl<mlir::Value> &acc);

/// The scaled scores of each score n-tile's elements in base-2 units
/// (times scale log2(e)), -inf where the row does not see the key (causal
/// rule, key mask, past the last key).
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
maskedScores(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
             const TaskRows &r, llvm::ArrayRef<mlir::Value> scores, mlir::Value j0);

/// A loop of `tasks` warp tasks over `carried` (marked mt.warp_tasks);
/// `body` gets the lane's fragments helper and the task's rows.
llvm::SmallVector<mlir::Value>
warpTasks(LinalgBuilder &lb, const AttentionProblem &p, const TaskShape &shape,
          mlir::ValueRange carried,
          llvm::function_ref<llvm::SmallVector<mlir::Value>(const Fragments &, const TaskRows &,
                                                            mlir::ValueRange)>
              body);

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_MMAATTENTIONTILES_H
