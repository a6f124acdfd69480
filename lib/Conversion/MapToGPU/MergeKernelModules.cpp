//===- MergeKernelModules.cpp - every kernel in one gpu.module -------------===//
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mt {
#define GEN_PASS_DEF_MERGEKERNELMODULESPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

struct MergeKernelModulesPass : mt::impl::MergeKernelModulesPassBase<MergeKernelModulesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> sources(module.getOps<gpu::GPUModuleOp>());
    if (sources.empty())
      return;
    for (gpu::GPUModuleOp source : sources)
      if (source.getTargetsAttr() || source->getAttrs().size() > 1) {
        source.emitError("mt-merge-kernel-modules: run it before targets are attached");
        return signalPassFailure();
      }
    OpBuilder builder(sources.front());
    SymbolTable moduleSymbols(module);
    if (moduleSymbols.lookup(moduleName) &&
        !llvm::is_contained(sources, moduleSymbols.lookup(moduleName))) {
      module.emitError() << "mt-merge-kernel-modules: the name @" << moduleName << " is taken";
      return signalPassFailure();
    }
    auto merged = gpu::GPUModuleOp::create(builder, module.getLoc(), "mt_kernels_merging");
    SymbolTable mergedSymbols(merged);
    // Where each (module, symbol) went.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUModuleOp source : sources) {
      for (Operation &op : llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op.emitError("mt-merge-kernel-modules: a kernel module holds something that is not "
                       "a symbol");
          return signalPassFailure();
        }
        StringAttr old = symbol.getNameAttr();
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        // insert() renames on a clash (uniquing with a suffix).
        StringAttr now = mergedSymbols.insert(&op);
        moved[{source.getNameAttr(), old}] = now;
      }
    }
    for (gpu::GPUModuleOp source : sources)
      source.erase();
    merged.setName(moduleName);
    StringAttr mergedName = merged.getNameAttr();
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it = moved.find({kernel.getRootReference(), kernel.getLeafReference()});
      if (it == moved.end()) {
        launch.emitError("mt-merge-kernel-modules: launches a kernel of no outlined module");
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(mergedName, {FlatSymbolRefAttr::get(it->second)}));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
