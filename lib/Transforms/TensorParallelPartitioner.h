//===- TensorParallelPartitioner.h - mt-partition-tensor-parallel's state -*- C++ -*-===//
//
// Shared by the pass's driver (PartitionTensorParallel.cpp: the walk over a
// model, the op dispatch, the parameters' shardings) and its rules
// (TensorParallelRules.cpp: how a layout flows through linears, the loss,
// pointwise and row-wise ops and layer stacks, and where reductions go).
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H
#define MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mt {
namespace tensor_parallel {

using namespace mlir;


inline constexpr llvm::StringLiteral kMeshName = "mesh";
inline constexpr llvm::StringLiteral kAxis = "tp";

/// How a value of the rewritten program relates to the logical one.
struct Layout {
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
  SmallVector<int64_t> segments;

  static Layout split(int64_t dim, SmallVector<int64_t> segments = {}) {
    Layout l;
    l.kind = Split;
    l.dim = dim;
    l.segments = std::move(segments);
    return l;
  }
  static Layout of(Kind k) {
    Layout l;
    l.kind = k;
    return l;
  }
  bool isSplit(int64_t d) const { return kind == Split && dim == d; }
  bool varies() const { return kind != Replicated; }
  bool operator==(const Layout &o) const {
    return kind == o.kind && dim == o.dim && segments == o.segments;
  }
};

inline RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

class Partitioner {
public:
  Partitioner(func::FuncOp func, int64_t tp, bool sequenceParallel)
      : func(func), tp(tp), sp(sequenceParallel), b(func.getContext()) {}

  LogicalResult run();

private:
  // Layout bookkeeping.
  Layout layoutOf(Value v) {
    auto it = layouts.find(v);
    return it == layouts.end() ? Layout() : it->second;
  }
  /// The per-rank type of a logical value laid out as `l`.
  RankedTensorType localType(RankedTensorType type, const Layout &l) {
    if (l.kind != Layout::Split)
      return type;
    SmallVector<int64_t> shape(type.getShape());
    shape[l.dim] /= tp;
    return RankedTensorType::get(shape, type.getElementType());
  }
  void setLayout(Value v, const Layout &l) {
    layouts[v] = l;
    v.setType(localType(tensorOf(v), l));
  }

  // Parameters: function arguments marked mt.param, or the per-layer block
  // arguments of a layer stack (whose stacked operand is one).
  bool isParam(Value v) { return paramRoot.count(v); }
  LogicalResult requireParamLayout(Operation *user, Value param, const Layout &l);

  // Building blocks.
  Value axisIndex(Location loc);
  Value vary(Value v, Location loc);
  Value reduce(Value partial, Location loc);
  LogicalResult checkSplits(Operation *op, int64_t size, StringRef what);

  /// Segments of a linear's output when it can be column-parallel: it reaches
  /// only row-parallel contractions or the loss through ops that keep a
  /// feature split. Empty when it cannot.
  std::optional<SmallVector<int64_t>> columnSegments(Value out);
  bool keepsSplit(Value v, int64_t dim, int depth);

  LogicalResult visitBlock(Block &block);
  LogicalResult visit(Operation *op);
  LogicalResult visitLinear(LinearOp op);
  LogicalResult visitCrossEntropy(CrossEntropyOp op);
  LogicalResult visitElementwise(Operation *op);
  LogicalResult visitLayerStack(LayerStackOp op);

  /// Replaces partial operands by their reduction.
  void reducePartialOperands(Operation *op) {
    for (OpOperand &o : op->getOpOperands())
      if (layoutOf(o.get()).kind == Layout::Partial)
        o.set(reduce(o.get(), op->getLoc()));
  }
  /// Replicated float operands of an op that runs per rank pass mt.vary.
  void varyReplicatedOperands(Operation *op) {
    for (OpOperand &o : op->getOpOperands()) {
      auto t = dyn_cast<RankedTensorType>(o.get().getType());
      if (t && isa<FloatType>(t.getElementType()) &&
          layoutOf(o.get()).kind == Layout::Replicated)
        o.set(vary(o.get(), op->getLoc()));
    }
  }
  InFlightDiagnostic fail(Operation *op) {
    return op->emitError() << "mt-partition-tensor-parallel (tp=" << tp << "): ";
  }

  func::FuncOp func;
  int64_t tp;
  bool sp;
  OpBuilder b;
  llvm::DenseMap<Value, Layout> layouts;
  /// Parameter value -> (function argument, leading stacked dimension 0/1).
  llvm::DenseMap<Value, std::pair<BlockArgument, int64_t>> paramRoot;
  llvm::DenseMap<BlockArgument, Layout> paramLayouts; // by function argument
  llvm::DenseMap<BlockArgument, Operation *> paramDecidedBy;
  std::optional<Location> sequenceError; // a sequence that does not split over tp
};

} // namespace tensor_parallel
} // namespace mt

#endif // MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H
