//===- MTToLinalg.cpp - the mt-lower-to-linalg pass ------------------------===//
#include "Lowerings.h"

#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mt {
#define GEN_PASS_DEF_LOWERTOLINALGPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Gives the ops lowering `op` created (those between `before` and it) the
/// name of `op` ("layer_norm_grad") around their location, so the kernels
/// made of them can be named after it (mt-describe-kernels) and profiles
/// say what ran.
void nameAfter(Operation *op, Operation *before) {
  auto name = StringAttr::get(op->getContext(), op->getName().stripDialect());
  Operation *first = before ? before->getNextNode() : &op->getBlock()->front();
  for (Operation *created = first; created && created != op; created = created->getNextNode())
    created->walk([&](Operation *inner) {
      if (!isa<NameLoc>(inner->getLoc()))
        inner->setLoc(NameLoc::get(name, inner->getLoc()));
    });
}

/// Replaces the mt ops of `func` in program order; each lowering sees its
/// operands already lowered.
LogicalResult lowerFunction(func::FuncOp func) {
  SmallVector<Operation *> ops;
  bool ok = true;
  func.walk([&](Operation *op) {
    if (!isa<MTDialect>(op->getDialect()))
      return;
    if (isa<SendOp, RecvOp>(op)) {
      op->emitError() << "mt-lower-to-linalg: '" << op->getName()
                      << "' has no CPU lowering (the runtime's pipeline scheduler moves "
                         "activations between stages)";
      ok = false;
      return;
    }
    if (isa<LayerStackOp>(op)) {
      op->emitError("mt-lower-to-linalg: run mt-unroll-layers first");
      ok = false;
      return;
    }
    ops.push_back(op);
  });
  if (!ok)
    return failure();
  for (Operation *op : ops) {
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t); r && !r.hasStaticShape())
        return op->emitError("mt-lower-to-linalg: run mt-specialize-shapes first");
    OpBuilder builder(op);
    Operation *before = op->getPrevNode();
    LinalgBuilder lb(builder, op->getLoc());
    std::optional<Lowered> lowered = lowerRowOp(op, lb);
    if (!lowered)
      lowered = lowerNNOp(op, lb);
    if (!lowered)
      lowered = lowerAttentionOp(op, lb);
    if (!lowered)
      lowered = lowerTensorOp(op, lb);
    if (!lowered)
      lowered = lowerGradOp(op, lb);
    if (!lowered)
      lowered = lowerOptimizerOp(op, lb);
    if (!lowered)
      lowered = lowerParallelOp(op, lb);
    if (!lowered)
      return op->emitError() << "mt-lower-to-linalg: no lowering for '" << op->getName() << "'";
    if (failed(*lowered))
      return failure();
    nameAfter(op, before);
    op->replaceAllUsesWith(**lowered);
    op->erase();
  }
  return success();
}

struct LowerToLinalgPass : mt::impl::LowerToLinalgPassBase<LowerToLinalgPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration())
        funcs.push_back(func);
    for (auto func : funcs) {
      if (failed(lowerFunction(func)))
        return signalPassFailure();
      // Exported with a C interface so mt-export-entry-points can wrap it.
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
    }
    // Meshes only describe distribution.
    for (auto mesh : llvm::make_early_inc_range(getOperation().getOps<MeshOp>()))
      mesh.erase();
  }
};

} // namespace
