//===- MmaAttentionTiles.h - per-lane pieces of the tensor-core attention -*- C++ -*-===//
//
// What the tensor-core attention kernels (LowerMmaAttention.cpp: the
// forward; LowerMmaAttentionGrad.cpp: dQ) share. A warp task is 16 query
// rows of one (batch, head); lane l holds rows g = l / 4 and g + 8 and, in
// each fragment, columns 2t, 2t + 1 (t = l % 4) of every 8 (the m16n8k16
// layouts of mt.warp_mma, docs/spec.md). Products come in two shapes:
// 16 rows x 8 keys (an n-tile of scores, B read from a [keys, D] tensor
// row by row) and 16 rows x 8 head columns (B read from a [keys, D] tensor
// column by column, the keys as K); the C fragments of two score n-tiles are
// the A fragment of one 16-key k-step.
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
  /// An element of a 16-bit tensor as it is (no widening).
  mlir::Value load(mlir::Value tensor, mlir::ValueRange indices) const;
  mlir::Value mma(mlir::Value a, mlir::Value b, mlir::Value c) const;
  /// The quad's (the 4 lanes holding one row) maximum or sum of `v`.
  mlir::Value quad(mlir::Value v, mlir::gpu::AllReduceOperation kind) const;
};

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
  /// Key j0 + 8 n + 2 t + (e & 1): the column of element e of score n-tile n.
  mlir::Value keyOf(Index x, mlir::Value j0, int64_t n, int64_t e) const;
  /// Key tiles up to the last key the task's last row sees (the same for
  /// every lane: a uniform loop around the warp's MMAs).
  mlir::Value tiles(Index x, const AttentionProblem &p, const TaskShape &shape) const;
};

/// The A fragments (one per k-step) of the task's 16 query rows of
/// `tensor`, `at(row, column)` giving an element's indices.
llvm::SmallVector<mlir::Value>
rowFragments(const Fragments &f, const TaskShape &shape, const TaskRows &r, mlir::Value tensor,
             llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value, mlir::Value)> at);

/// Score-shaped products A B^T for the key tile from `j0`: per 8-key n-tile,
/// the A fragments times rows of `keyed` ([B, Hkv, keys, D]); C starts at 0.
llvm::SmallVector<mlir::Value> keyProducts(const Fragments &f, const AttentionProblem &p,
                                           const TaskShape &shape, const TaskRows &r,
                                           llvm::ArrayRef<mlir::Value> a, mlir::Value keyed,
                                           mlir::Value j0);

/// acc[c] += P V over the key tile from `j0`: `weights` holds, per score
/// n-tile, the 4 f32 values of its C fragment (rounded to the element type
/// as the A fragments of the 16-key k-steps); V is `keyed` read column-wise.
void addValueProducts(const Fragments &f, const AttentionProblem &p, const TaskShape &shape,
                      const TaskRows &r, llvm::ArrayRef<llvm::SmallVector<mlir::Value>> weights,
                      mlir::Value keyed, mlir::Value j0, llvm::SmallVectorImpl<mlir::Value> &acc);

/// The scaled scores of each score n-tile's elements, -inf where the row
/// does not see the key (causal rule, key mask, past the last key).
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
maskedScores(const Fragments &f, const AttentionProblem &p, const TaskRows &r,
             llvm::ArrayRef<mlir::Value> scores, mlir::Value j0);

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
