//===- ExportEntryPoints.cpp - one calling convention for the runtime ------===//
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_EXPORTENTRYPOINTSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

struct ExportEntryPointsPass : mt::impl::ExportEntryPointsPassBase<ExportEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> interfaces;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.getName().starts_with(kCInterfacePrefix) && !fn.isExternal())
        interfaces.push_back(fn);
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    auto voidTy = LLVM::LLVMVoidType::get(&getContext());
    for (LLVM::LLVMFuncOp fn : interfaces) {
      auto fnType = fn.getFunctionType();
      if (!isa<LLVM::LLVMVoidType>(fnType.getReturnType()) ||
          llvm::any_of(fnType.getParams(), [](Type t) { return !isa<LLVM::LLVMPointerType>(t); })) {
        fn.emitError("mt-export-entry-points: expected a void function of descriptor pointers "
                     "(results must have been turned into out-parameters)");
        return signalPassFailure();
      }
      std::string name =
          ("mt_entry_" + fn.getName().drop_front(kCInterfacePrefix.size())).str();
      auto entry = b.create<LLVM::LLVMFuncOp>(fn.getLoc(), name,
                                              LLVM::LLVMFunctionType::get(voidTy, {ptr}));
      Block *block = entry.addEntryBlock(b);
      OpBuilder eb = OpBuilder::atBlockEnd(block);
      SmallVector<Value> args;
      for (unsigned i = 0; i < fnType.getNumParams(); ++i) {
        Value slot = eb.create<LLVM::GEPOp>(fn.getLoc(), ptr, ptr, block->getArgument(0),
                                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(eb.create<LLVM::LoadOp>(fn.getLoc(), ptr, slot));
      }
      eb.create<LLVM::CallOp>(fn.getLoc(), fn, args);
      eb.create<LLVM::ReturnOp>(fn.getLoc(), ValueRange{});
    }
  }
};

} // namespace
