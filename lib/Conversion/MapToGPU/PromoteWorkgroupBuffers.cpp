//===- PromoteWorkgroupBuffers.cpp - a kernel's shared buffers as attributions ===//
//
// A kernel's block-wide buffer is written as a memref.alloca in workgroup
// memory at the top of the block's work (mt-emulate-gpu-kernels runs it so
// on the CPU). Outlined, that alloca would become a per-thread stack slot
// addressed as shared memory: NVVM lowers only a gpu.func's workgroup
// attributions to .shared variables. So each such alloca becomes one, 16
// bytes aligned for vector accesses.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mt {
#define GEN_PASS_DEF_PROMOTEWORKGROUPBUFFERSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

constexpr int64_t kSharedAlignment = 16;

struct PromoteWorkgroupBuffersPass
    : mt::impl::PromoteWorkgroupBuffersPassBase<PromoteWorkgroupBuffersPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<gpu::GPUFuncOp>()) {
      SmallVector<memref::AllocaOp> allocas;
      fn.walk([&](memref::AllocaOp a) {
        auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(a.getType().getMemorySpace());
        if (space && space.getValue() == gpu::AddressSpace::Workgroup)
          allocas.push_back(a);
      });
      for (memref::AllocaOp a : allocas) {
        // Inside a loop or branch, it would be one buffer made many times.
        if (a->getParentOp() != fn || !a.getType().hasStaticShape()) {
          a.emitError("mt-promote-workgroup-buffers: a workgroup buffer must be made at the "
                      "kernel's top level, with a static shape");
          return signalPassFailure();
        }
        BlockArgument buffer = fn.addWorkgroupAttribution(a.getType(), a.getLoc());
        fn.setWorkgroupAttributionAttr(
            buffer.getArgNumber() - fn.getFirstWorkgroupAttributionIndex(),
            StringAttr::get(&getContext(), LLVM::LLVMDialect::getAlignAttrName()),
            IntegerAttr::get(IntegerType::get(&getContext(), 64), kSharedAlignment));
        a.replaceAllUsesWith(buffer);
        a.erase();
      }
    }
  }
};

} // namespace
