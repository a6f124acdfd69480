//===- TensorParallelPartitioner.h - mt-partition-tensor-parallel's state -*- C++ -*-===//
//
// The pass's driver (PartitionTensorParallel.cpp: the walk over a model, the
// parameters' shardings) and its building blocks
// (TensorParallelPartitioner.cpp: layouts, parameters, reductions, where a
// feature split can go). The rules themselves are the ops'
// (TensorParallelOpInterface, lib/Dialect/MT/IR/MT*TensorParallel.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H
#define MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Dialect/MT/IR/TensorParallelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mt {
namespace tensor_parallel {

using namespace mlir;
using Layout = TensorLayout;

inline RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

class Partitioner : public TensorParallelBuilder {
public:
  Partitioner(func::FuncOp func, int64_t tp, bool sequenceParallel)
      : func(func), tp(tp), sp(sequenceParallel), b(func.getContext()) {}

  LogicalResult run();

  // TensorParallelBuilder.
  int64_t ranks() const override { return tp; }
  bool sequenceParallel() const override { return sp; }
  OpBuilder &builder() override { return b; }
  Layout layoutOf(Value v) override {
    auto it = layouts.find(v);
    return it == layouts.end() ? Layout() : it->second;
  }
  void setLayout(Value v, const Layout &l) override {
    layouts[v] = l;
    v.setType(localType(tensorOf(v), l));
  }
  void recordLayout(Value v, const Layout &l) override { layouts[v] = l; }
  bool isParam(Value v) override { return paramRoot.count(v); }
  LogicalResult requireParamLayout(Operation *user, Value param, const Layout &l) override;
  void bindLayerParam(BlockArgument perLayer, Value param) override {
    paramRoot[perLayer] = {paramRoot.lookup(param).first, 1};
  }
  LogicalResult partitionBlock(Block &block) override;
  Value axisIndex(Location loc) override;
  Value vary(Value v, Location loc) override;
  Value reduce(Value partial, Location loc) override;
  std::optional<SmallVector<int64_t>> columnSegments(Value out) override;
  InFlightDiagnostic fail(Operation *op) override {
    return op->emitError() << "mt-partition-tensor-parallel (tp=" << tp << "): ";
  }

private:
  /// Whether `v`, split along `dim`, reaches only ops that consume the split
  /// or keep it (TensorParallelOpInterface::splitThrough).
  bool keepsSplit(Value v, int64_t dim, int depth);
  LogicalResult visit(Operation *op);
  LogicalResult visitPointwise(Operation *op);
  LogicalResult visitTerminator(Operation *op);

  func::FuncOp func;
  int64_t tp;
  bool sp;
  OpBuilder b;
  llvm::DenseMap<Value, Layout> layouts;
  /// The mt.vary made of a value: its users share it (one tensor, saved
  /// once for the backward), when it comes before them in their block.
  llvm::DenseMap<Value, VaryOp> varied;
  /// Parameter value -> (function argument, leading stacked dimension 0/1).
  llvm::DenseMap<Value, std::pair<BlockArgument, int64_t>> paramRoot;
  llvm::DenseMap<BlockArgument, Layout> paramLayouts; // by function argument
  llvm::DenseMap<BlockArgument, Operation *> paramDecidedBy;
  std::optional<Location> sequenceError; // a sequence that does not split over tp
};

} // namespace tensor_parallel
} // namespace mt

#endif // MT_LIB_TRANSFORMS_TENSORPARALLELPARTITIONER_H
