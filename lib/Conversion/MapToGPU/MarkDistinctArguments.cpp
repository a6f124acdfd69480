//===- MarkDistinctArguments.cpp - noalias out-parameters of layers --------===//
//
// mt-map-to-gpu launches independent kernels together (SiblingKernels.cpp)
// only when it can tell their buffers apart. A layer's out-parameters carry
// no noalias attribute, so every pair of kernels writing two of them looked
// dependent. The calls say otherwise: each passes distinct buffers.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"

#include "BufferRanges.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mt {
#define GEN_PASS_DEF_MARKDISTINCTARGUMENTSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// Whether operand `i` of `call` cannot overlap any other memref operand.
bool passedDistinct(func::CallOp call, unsigned i) {
  mt::BufferRange mine = mt::rangeOf(call.getOperand(i));
  if (!mine.resolved)
    return false;
  for (auto [j, other] : llvm::enumerate(call.getOperands()))
    if (j != i && isa<MemRefType>(other.getType()) && mt::mayOverlap(mine, mt::rangeOf(other)))
      return false;
  return true;
}

struct MarkDistinctArgumentsPass
    : mt::impl::MarkDistinctArgumentsPassBase<MarkDistinctArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef noalias = LLVM::LLVMDialect::getNoAliasAttrName();
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn.isPrivate() || fn.isExternal())
        continue;
      std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(fn, module);
      if (!uses)
        continue;
      SmallVector<func::CallOp> calls;
      bool onlyCalls = true;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        onlyCalls &= call && call.getCallee() == fn.getSymName();
        if (call)
          calls.push_back(call);
      }
      if (!onlyCalls || calls.empty())
        continue;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        if (!isa<MemRefType>(fn.getArgument(i).getType()) || fn.getArgAttr(i, noalias))
          continue;
        if (llvm::all_of(calls, [&](func::CallOp call) { return passedDistinct(call, i); }))
          fn.setArgAttr(i, noalias, UnitAttr::get(fn.getContext()));
      }
    }
  }
};

} // namespace
