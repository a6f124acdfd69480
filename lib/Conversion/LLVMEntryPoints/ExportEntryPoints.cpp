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

/// The mt attributes (parameter markers, gradient names) have served their
/// purpose once the module is in the LLVM dialect; LLVM IR has no place for
/// them.
void stripMTAttributes(LLVM::LLVMFuncOp fn) {
  auto strip = [&](DictionaryAttr dict) {
    SmallVector<NamedAttribute> kept;
    if (!dict)
      return DictionaryAttr::get(fn.getContext(), kept);
    for (NamedAttribute a : dict)
      if (!a.getName().getValue().starts_with("mt."))
        kept.push_back(a);
    return DictionaryAttr::get(dict.getContext(), kept);
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttrs(i, strip(fn.getArgAttrDict(i)));
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    fn.setResultAttrs(i, strip(fn.getResultAttrDict(i)));
  for (NamedAttribute a : llvm::to_vector(fn->getDiscardableAttrs()))
    if (a.getName().getValue().starts_with("mt."))
      fn->removeDiscardableAttr(a.getName());
}

struct ExportEntryPointsPass : mt::impl::ExportEntryPointsPassBase<ExportEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      stripMTAttributes(fn);
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
      std::string name = ("mt_entry_" + fn.getName().drop_front(kCInterfacePrefix.size())).str();
      auto entry = LLVM::LLVMFuncOp::create(b, fn.getLoc(), name,
                                            LLVM::LLVMFunctionType::get(voidTy, {ptr}));
      Block *block = entry.addEntryBlock(b);
      OpBuilder eb = OpBuilder::atBlockEnd(block);
      SmallVector<Value> args;
      for (unsigned i = 0; i < fnType.getNumParams(); ++i) {
        Value slot = LLVM::GEPOp::create(eb, fn.getLoc(), ptr, ptr, block->getArgument(0),
                                         ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(eb, fn.getLoc(), ptr, slot));
      }
      LLVM::CallOp::create(eb, fn.getLoc(), fn, args);
      LLVM::ReturnOp::create(eb, fn.getLoc(), ValueRange{});
    }
  }
};

} // namespace
