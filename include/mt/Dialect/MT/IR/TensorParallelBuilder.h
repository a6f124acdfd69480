//===- TensorParallelBuilder.h - what an op's tensor-parallel rule uses -*- C++ -*-===//
//
// mt-partition-tensor-parallel walks a model in program order and asks each
// op, through TensorParallelOpInterface::partitionTensorParallel, to rewrite
// itself into what one rank of the tensor-parallel group runs, given the
// layouts of its operands. The rule works with this: the layouts so far, the
// parameters' layouts (decided once for the whole model), and the building
// blocks rules share (reductions of partial sums, mt.vary, this rank's
// index). The pass implements it; docs/parallelism.md describes the layouts.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DIALECT_MT_IR_TENSORPARALLELBUILDER_H
#define MT_DIALECT_MT_IR_TENSORPARALLELBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>

namespace mt {

/// How a value of the rewritten program relates to the logical one.
struct TensorLayout {
  enum Kind {
    Replicated, // the whole value, the same on every rank
    Varying,    // the whole value, but feeding per-rank work
    Split,      // this rank's piece along `dim` (of every segment)
    Partial,    // the ranks' values add up to the logical one
  };
  Kind kind = Replicated;
  int64_t dim = -1;
  /// Split: the dimension is made of these consecutive segments (logical
  /// sizes), each split over the ranks ([q; k; v] weights have three).
  llvm::SmallVector<int64_t> segments;

  static TensorLayout split(int64_t dim, llvm::SmallVector<int64_t> segments = {}) {
    TensorLayout l;
    l.kind = Split;
    l.dim = dim;
    l.segments = std::move(segments);
    return l;
  }
  static TensorLayout of(Kind k) {
    TensorLayout l;
    l.kind = k;
    return l;
  }
  bool isSplit(int64_t d) const { return kind == Split && dim == d; }
  bool varies() const { return kind != Replicated; }
  bool operator==(const TensorLayout &o) const {
    return kind == o.kind && dim == o.dim && segments == o.segments;
  }
};

/// The mesh the pass declares and its one axis.
inline constexpr llvm::StringLiteral kTensorParallelMesh = "mesh";
inline constexpr llvm::StringLiteral kTensorParallelAxis = "tp";

/// What TensorParallelOpInterface::splitThrough answers besides a dimension.
inline constexpr int64_t kSplitConsumed = -1; // a row-parallel contraction, the vocab-parallel loss
inline constexpr int64_t kSplitBlocked = -2;  // the op cannot take the split

class TensorParallelBuilder {
public:
  virtual ~TensorParallelBuilder();

  /// The tensor-parallel group's size, and whether activations between
  /// tensor-parallel regions are split along the sequence.
  virtual int64_t ranks() const = 0;
  virtual bool sequenceParallel() const = 0;
  /// Builds before the op being rewritten.
  virtual mlir::OpBuilder &builder() = 0;

  virtual TensorLayout layoutOf(mlir::Value v) = 0;
  /// Records `v`'s layout and gives it its per-rank type.
  virtual void setLayout(mlir::Value v, const TensorLayout &l) = 0;
  /// Records the layout of a value built with its per-rank type already.
  virtual void recordLayout(mlir::Value v, const TensorLayout &l) = 0;

  /// Parameters: function arguments marked mt.param, or the per-layer block
  /// arguments of a layer stack.
  virtual bool isParam(mlir::Value v) = 0;
  /// Decides (or checks) the layout of parameter `param` as `user` needs it;
  /// a parameter needed in two layouts is an error naming both users.
  virtual mlir::LogicalResult requireParamLayout(mlir::Operation *user, mlir::Value param,
                                                 const TensorLayout &l) = 0;
  /// Layer stacks: `perLayer` is one layer's slice of the stacked `param`.
  virtual void bindLayerParam(mlir::BlockArgument perLayer, mlir::Value param) = 0;
  /// Rewrites the ops of `block` (a layer's body) in order.
  virtual mlir::LogicalResult partitionBlock(mlir::Block &block) = 0;

  /// This rank's index in the group (mt.axis_index).
  virtual mlir::Value axisIndex(mlir::Location loc) = 0;
  /// A replicated value that starts feeding per-rank work (mt.vary; its VJP
  /// sums the ranks' gradients).
  virtual mlir::Value vary(mlir::Value v, mlir::Location loc) = 0;
  /// Partial sums reduced: all-reduce, or reduce-scatter along the sequence
  /// under sequence parallelism.
  virtual mlir::Value reduce(mlir::Value partial, mlir::Location loc) = 0;
  /// The segments of a linear's output when the linear can be
  /// column-parallel (its output reaches only ops that consume or keep a
  /// feature split, see splitThrough); none when it cannot.
  virtual std::optional<llvm::SmallVector<int64_t>> columnSegments(mlir::Value out) = 0;
  /// An error at `op`, prefixed with the pass and the group size.
  virtual mlir::InFlightDiagnostic fail(mlir::Operation *op) = 0;

  // Shared by many rules (TensorParallelBuilder.cpp).
  /// The per-rank type of a logical value laid out as `l`.
  mlir::RankedTensorType localType(mlir::RankedTensorType type, const TensorLayout &l);
  /// Fails, saying what, when `size` does not divide by the group size.
  mlir::LogicalResult checkSplits(mlir::Operation *op, int64_t size, llvm::StringRef what);
  /// Replaces partial operands by their reduction.
  void reducePartialOperands(mlir::Operation *op);
  /// Replicated float operands of an op that runs per rank pass mt.vary.
  void varyReplicatedOperands(mlir::Operation *op);
  /// The rule of ops that apply one function to every element (or row, for
  /// norms over the last dimension): the result keeps the input's layout.
  mlir::LogicalResult partitionElementwise(mlir::Operation *op);
  /// Operands that are parameters are needed whole (replicated).
  mlir::LogicalResult requireReplicatedParams(mlir::Operation *op, unsigned firstOperand = 0);
};

} // namespace mt

#endif // MT_DIALECT_MT_IR_TENSORPARALLELBUILDER_H
