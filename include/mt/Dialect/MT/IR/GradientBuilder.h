//===- GradientBuilder.h - what an op's VJP rule builds with ----*- C++ -*-===//
//
// Reverse-mode autodiff (mt-derive-gradients) walks a model backwards and
// asks each op, through DifferentiableOpInterface::buildVjp, to add the
// vector-Jacobian products of its results' adjoints to its operands'. The
// rule builds with this: the adjoints so far, accumulation (adjoints of a
// value used several times are summed), and the helpers most rules share.
// docs/autodiff.md lists the rules.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DIALECT_MT_IR_GRADIENTBUILDER_H
#define MT_DIALECT_MT_IR_GRADIENTBUILDER_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mt {

class GradientBuilder {
public:
  explicit GradientBuilder(mlir::OpBuilder &builder) : b(builder) {}

  /// Where the backward ops go; they point at the forward op (loc()).
  mlir::OpBuilder &builder() { return b; }
  mlir::Location loc() const { return loc_; }
  void setLoc(mlir::Location loc) { loc_ = loc; }

  /// The adjoint of `v` so far, or null.
  mlir::Value adjoint(mlir::Value v) const { return adjoints.lookup(v); }
  /// The adjoint of op's only result (null when it has none so far).
  mlir::Value resultAdjoint(mlir::Operation *op) const {
    return op->getNumResults() == 1 ? adjoint(op->getResult(0)) : mlir::Value();
  }

  /// adjoint(v) += delta, for values that depend on a parameter.
  void accumulate(mlir::Value v, mlir::Value delta);
  /// Layer `layer` of a stacked weight (mt.slice_layer) gets `delta`; the
  /// pass stacks the per-layer adjoints at the end.
  void accumulateLayer(mlir::Value stacked, int64_t layer, mlir::Value delta);

  mlir::Value zeros(mlir::Type type);
  /// The adjoint of a trailing-broadcast operand: summed down to its shape.
  mlir::Value sumTo(mlir::Value grad, mlir::Type target);
  /// `v` viewed as a matrix [rows, last dimension].
  mlir::Value flatten(mlir::Value v);

  /// Values that depend on a parameter; only they need adjoints.
  llvm::DenseSet<mlir::Value> active;
  /// Stacked weight -> per-layer adjoints collected from mt.slice_layer.
  llvm::MapVector<mlir::Value, llvm::SmallVector<mlir::Value>> layerAdjoints;

private:
  mlir::OpBuilder &b;
  mlir::Location loc_ = b.getUnknownLoc();
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
};

} // namespace mt

#endif // MT_DIALECT_MT_IR_GRADIENTBUILDER_H
