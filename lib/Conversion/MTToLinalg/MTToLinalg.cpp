//===- MTToLinalg.cpp - the mt-lower-to-linalg pass ------------------------===//
#include "Lowerings.h"

#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mt {
#define GEN_PASS_DEF_LOWERTOLINALGPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace mt {

void nameAfter(Operation *op, Operation *before) {
  auto name = StringAttr::get(op->getContext(), op->getName().stripDialect());
  Operation *first = before ? before->getNextNode() : &op->getBlock()->front();
  for (Operation *created = first; created && created != op; created = created->getNextNode())
    created->walk([&](Operation *inner) {
      if (!isa<NameLoc>(inner->getLoc()))
        inner->setLoc(NameLoc::get(name, inner->getLoc()));
    });
}

} // namespace mt

namespace {

/// Whether some pattern of `patterns` matches `op`, by name or interface.
bool hasLowering(Operation *op, RewritePatternSet &patterns) {
  for (const std::unique_ptr<RewritePattern> &p : patterns.getNativePatterns()) {
    if (std::optional<OperationName> root = p->getRootKind(); root && *root == op->getName())
      return true;
    if (std::optional<TypeID> id = p->getRootInterfaceID(); id && op->getName().hasInterface(*id))
      return true;
  }
  return false;
}

/// What the patterns need before they run: a pattern for every op, no op
/// the CPU cannot run, no layer stack left, every shape static. Checked up
/// front because the conversion runs without rollback.
LogicalResult checkLowerable(ModuleOp module, RewritePatternSet &patterns) {
  WalkResult walk = module.walk([&](Operation *op) {
    if (!isa<MTDialect>(op->getDialect()) || isa<MeshOp>(op))
      return WalkResult::advance();
    if (isa<SendOp, RecvOp>(op)) {
      op->emitError() << "mt-lower-to-linalg: '" << op->getName()
                      << "' has no CPU lowering (the runtime's pipeline scheduler moves "
                         "activations between stages)";
      return WalkResult::interrupt();
    }
    if (isa<LayerStackOp>(op)) {
      op->emitError("mt-lower-to-linalg: run mt-unroll-layers first");
      return WalkResult::interrupt();
    }
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t); r && !r.hasStaticShape()) {
        op->emitError("mt-lower-to-linalg: run mt-specialize-shapes first");
        return WalkResult::interrupt();
      }
    if (!hasLowering(op, patterns)) {
      op->emitError() << "mt-lower-to-linalg: no lowering for '" << op->getName() << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Tensor ops a lowering left unread (an elementwise producer applied
/// inside the sum that was its only reader), so nothing computes or stores
/// them. Each block from its end, so a dead op's dead operands follow it.
void eraseDeadTensorOps(ModuleOp module) {
  module.walk([](Block *block) {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
      if (isa<linalg::LinalgOp, tensor::EmptyOp>(op) && isOpTriviallyDead(&op))
        op.erase();
  });
}

struct LowerToLinalgPass : mt::impl::LowerToLinalgPassBase<LowerToLinalgPass> {
  using LowerToLinalgPassBase::LowerToLinalgPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    RewritePatternSet patterns(&getContext());
    populateRowLoweringPatterns(patterns);
    populateNNLoweringPatterns(patterns);
    populateAttentionLoweringPatterns(patterns);
    populateFusedAttentionLoweringPatterns(patterns, tiledAttention, mmaAttention);
    populateRelativePositionLoweringPatterns(patterns);
    populateTensorLoweringPatterns(patterns);
    populateGradLoweringPatterns(patterns);
    populateOptimizerLoweringPatterns(patterns);
    populateParallelLoweringPatterns(patterns);
    if (failed(checkLowerable(module, patterns)))
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalDialect<MTDialect>();
    // Meshes only describe distribution; erased below.
    target.addLegalOp<MeshOp>();
    // A warp task's lane and tensor-core products (mma-attention).
    target.addLegalOp<LaneIdOp, WarpMmaOp>();
    target.addLegalDialect<gpu::GPUDialect, vector::VectorDialect>();
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();

    // Without rollback each op is replaced as soon as it is lowered, so the
    // ops after it see lowered operands (a host scalar stays a scalar,
    // scalarOf), and the collectives are numbered in program order, which
    // every rank shares. The module is the anchor: runtime functions are
    // declared and collectives numbered module-wide.
    ConversionConfig config;
    config.allowPatternRollback = false;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(module, target, std::move(patterns), config)))
      return signalPassFailure();

    eraseDeadTensorOps(module);
    for (auto func : module.getOps<func::FuncOp>())
      // exported with a C interface (mt-export-entry-points); private
      // functions (outlined layers) are only called.
      if (!func.isDeclaration() && !func.isPrivate())
        func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
    for (auto mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
  }
};

} // namespace
