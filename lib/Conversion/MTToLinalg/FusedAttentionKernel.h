//===- FusedAttentionKernel.h - pieces of the fused attention kernels -*- C++ -*-===//
//
// mt.fused_attention and its gradient lower to row kernels (one loop over
// query rows, or over key rows, with scalar loops inside) that walk the
// other side in tiles and never hold a score matrix. This header holds
// what the forward and the two backward kernels share: the problem's
// sizes, index arithmetic, the visibility rule (causal and key masks) and
// the dropout keep decision.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_FUSEDATTENTIONKERNEL_H
#define MT_LIB_CONVERSION_MTTOLINALG_FUSEDATTENTIONKERNEL_H

#include "DropoutKeep.h"
#include "RowKernel.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include <optional>

namespace mt {

/// Integer index arithmetic at one builder position.
struct Index {
  mlir::OpBuilder &b;
  mlir::Location l;

  mlir::Value c(int64_t v) const { return mlir::arith::ConstantIndexOp::create(b, l, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) const {
    return mlir::arith::AddIOp::create(b, l, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) const {
    return mlir::arith::SubIOp::create(b, l, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MulIOp::create(b, l, x, y);
  }
  mlir::Value div(mlir::Value x, int64_t y) const {
    return mlir::arith::DivUIOp::create(b, l, x, c(y));
  }
  mlir::Value rem(mlir::Value x, int64_t y) const {
    return mlir::arith::RemUIOp::create(b, l, x, c(y));
  }
  mlir::Value min(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MinSIOp::create(b, l, x, y);
  }
  mlir::Value max(mlir::Value x, mlir::Value y) const {
    return mlir::arith::MaxSIOp::create(b, l, x, y);
  }
  mlir::Value lt(mlir::Value x, mlir::Value y) const {
    return mlir::arith::CmpIOp::create(b, l, mlir::arith::CmpIPredicate::slt, x, y);
  }
  /// ceil(x / y) for x >= 0.
  mlir::Value ceilDiv(mlir::Value x, int64_t y) const { return div(add(x, c(y - 1)), y); }
};

/// The sizes and attributes of one fused attention (forward or gradient).
struct AttentionProblem {
  int64_t batch, heads, kvHeads, queries, keys, headDim, group, tile;
  bool merged, causal;
  double scale;
  mlir::Type element, compute;
  mlir::Value query, key, value, keyMask;
  std::optional<DropoutKeep> dropout;

  /// Reads the op; fails with a diagnostic on dynamic shapes.
  template <typename FusedOp>
  static mlir::FailureOr<AttentionProblem> of(FusedOp op, mlir::Value output, LinalgBuilder &lb);

  /// The output's (or its gradient's) element c of query row (b, h, i).
  llvm::SmallVector<mlir::Value> outputAt(Index x, mlir::Value b, mlir::Value h, mlir::Value i,
                                          mlir::Value c) const;
  /// Whether query i of batch b sees key j (j < keys): the causal rule and
  /// the key mask.
  mlir::Value sees(Scalar s, mlir::Value b, mlir::Value i, mlir::Value j) const;
  /// The first key query i does not see under the causal rule (keys without it).
  mlir::Value keyLimit(Index x, mlir::Value i) const;
  /// The first query that sees key j under the causal rule (0 without it).
  mlir::Value queryStart(Index x, mlir::Value j) const;
  /// scale * q[b, h, i] . k[b, kh, j].
  mlir::Value score(Scalar s, mlir::Value b, mlir::Value h, mlir::Value kh, mlir::Value i,
                    mlir::Value j) const;
  /// sum_c rowA[c] * rowB[c] over head_dim, rows given as element readers.
  mlir::Value dot(Scalar s, llvm::function_ref<mlir::Value(Scalar, mlir::Value)> a,
                  llvm::function_ref<mlir::Value(Scalar, mlir::Value)> b) const;
  /// p kept by the dropout at (b, h, i, j), scaled by 1/(1-rate); p itself
  /// without dropout.
  mlir::Value dropped(Scalar s, mlir::Value p, mlir::Value b, mlir::Value h, mlir::Value i,
                      mlir::Value j) const;
};

/// A scalar loop over [0, count) (not marked along_row: the kernels' inner
/// loops sit inside tile loops, where a warp cannot split them).
llvm::SmallVector<mlir::Value> loop(Scalar s, int64_t count, mlir::ValueRange carried,
                                    ColumnFn body);
llvm::SmallVector<mlir::Value> loopTo(Scalar s, mlir::Value count, mlir::ValueRange carried,
                                      ColumnFn body);

/// Whether the CPU's tiled form (LowerTiledAttention.cpp) lowers elements
/// of this type: f32 and f64; 16-bit types keep the row kernels.
bool hasTiledAttention(mlir::Type element);
/// The CPU's tiled forms: tiles of query rows against tiles of keys, their
/// products matrix products.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
lowerTiledAttention(FusedAttentionOp op, const AttentionProblem &p, LinalgBuilder &lb);
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
lowerTiledAttentionGrad(FusedAttentionGradOp op, const AttentionProblem &p, LinalgBuilder &lb);

/// The GPU's tensor-core forward (LowerMmaAttention.cpp), for ops whose
/// shapes pass mmaAttentionShape: a loop of warp tasks written per lane.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
lowerMmaAttention(FusedAttentionOp op, const AttentionProblem &p, LinalgBuilder &lb);
/// The gradient's query-side kernel on tensor cores (LowerMmaAttentionGrad.cpp):
/// dq, and D = do . o per query row ([B * Hq * Sq], what the key-side
/// kernel reads).
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
lowerMmaQueryRowsGrad(FusedAttentionGradOp op, const AttentionProblem &p, LinalgBuilder &lb);
/// Its key-side kernel (LowerMmaAttentionKeys.cpp): dk and dv, reading D.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
lowerMmaKeyRowsGrad(FusedAttentionGradOp op, const AttentionProblem &p, mlir::Value deltas,
                    LinalgBuilder &lb);

template <typename FusedOp>
mlir::FailureOr<AttentionProblem> AttentionProblem::of(FusedOp op, mlir::Value output,
                                                       LinalgBuilder &lb) {
  auto q = tensorOf(op.getQuery()), k = tensorOf(op.getKey());
  if (!q.hasStaticShape() || !k.hasStaticShape())
    return op.emitOpError("needs static shapes to lower; specialize the batch and sequence "
                          "sizes first (mt-specialize-shapes)");
  AttentionProblem p;
  p.batch = q.getDimSize(0);
  p.heads = q.getDimSize(1);
  p.queries = q.getDimSize(2);
  p.headDim = q.getDimSize(3);
  p.kvHeads = k.getDimSize(1);
  p.keys = k.getDimSize(2);
  p.group = p.heads / p.kvHeads;
  p.tile = std::min<int64_t>(op.getBlockKeys(), p.keys);
  p.merged = tensorOf(output).getRank() == 3;
  p.causal = op.getMask() == MaskKind::causal;
  p.scale = op.getScale().convertToDouble();
  p.element = q.getElementType();
  p.compute = computeType(p.element);
  p.query = op.getQuery();
  p.key = op.getKey();
  p.value = op.getValue();
  p.keyMask = op.getKeyMask();
  DropoutKey key = DropoutKey::of(op);
  if (key.rate > 0.0)
    p.dropout.emplace(key, llvm::ArrayRef<int64_t>{p.batch, p.heads, p.queries, p.keys}, lb);
  return p;
}

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_FUSEDATTENTIONKERNEL_H
