//===- DescribeKernels.cpp - kernel names and traffic for profiles ---------===//
#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTAttrNames.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/StringSet.h"

namespace mt {
#define GEN_PASS_DEF_DESCRIBEKERNELSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// The name mt-lower-to-linalg gave the op a kernel came from, if any.
std::string originOf(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// The kernel argument `v` views, if any (through view-like ops).
BlockArgument argumentOf(Value v, gpu::GPUFuncOp kernel) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return {};
  return arg;
}

/// Whether an index is computed from a value loaded from memory.
bool dependsOnLoad(Value index) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  (void)getBackwardSlice(index, &slice, options);
  if (Operation *def = index.getDefiningOp())
    slice.insert(def);
  return llvm::any_of(slice, [](Operation *op) { return isa<memref::LoadOp, vector::LoadOp>(op); });
}

/// Whether `name` is `origin` or `origin_<n>` (named by an earlier run).
bool namedAfter(llvm::StringRef name, llvm::StringRef origin) {
  if (!name.consume_front(origin))
    return false;
  return name.empty() || (name.consume_front("_") && !name.empty() &&
                          llvm::all_of(name, [](char c) { return c >= '0' && c <= '9'; }));
}

struct Access {
  bool read = false, written = false;
  bool direct = false; // some access at indices that do not depend on loads
};

/// Bytes `kernel` must move, and whether some of its traffic is indirect.
std::pair<int64_t, bool> trafficOf(gpu::GPUFuncOp kernel) {
  llvm::DenseMap<BlockArgument, Access> accesses;
  auto note = [&](Value memref, ValueRange indices, bool write) {
    BlockArgument arg = argumentOf(memref, kernel);
    if (!arg)
      return;
    Access &a = accesses[arg];
    (write ? a.written : a.read) = true;
    a.direct = a.direct || llvm::none_of(indices, dependsOnLoad);
  };
  kernel.walk([&](Operation *op) {
    if (auto l = dyn_cast<memref::LoadOp>(op))
      note(l.getMemRef(), l.getIndices(), false);
    else if (auto s = dyn_cast<memref::StoreOp>(op))
      note(s.getMemRef(), s.getIndices(), true);
    else if (auto l = dyn_cast<vector::LoadOp>(op))
      note(l.getBase(), l.getIndices(), false);
    else if (auto s = dyn_cast<vector::StoreOp>(op))
      note(s.getBase(), s.getIndices(), true);
  });
  int64_t bytes = 0;
  bool indirect = false;
  for (auto &[arg, a] : accesses) {
    auto type = cast<MemRefType>(arg.getType());
    if (!a.direct || !type.hasStaticShape()) {
      indirect = true;
      continue;
    }
    int64_t size = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    bytes += size * ((a.read ? 1 : 0) + (a.written ? 1 : 0));
  }
  return {bytes, indirect};
}

struct DescribeKernelsPass : mt::impl::DescribeKernelsPassBase<DescribeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    SmallVector<NamedAttribute> described;
    llvm::StringSet<> describedNames; // (kernels of several modules may share names)
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      llvm::StringSet<> taken;
      for (Operation &op : kernels.getBody()->getOperations())
        if (auto symbol = dyn_cast<SymbolOpInterface>(op))
          taken.insert(symbol.getName());
      llvm::StringMap<int> uses;
      for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        std::string origin = originOf(kernel.getLoc());
        StringAttr old = kernel.getNameAttr();
        if (!origin.empty() && !namedAfter(old, origin)) {
          std::string name = origin;
          while (taken.contains(name))
            name = origin + "_" + std::to_string(++uses[origin]);
          taken.insert(name);
          kernel.setName(name);
          renamed[{kernels.getNameAttr(), old}] = kernel.getNameAttr();
        }
        auto [bytes, indirect] = trafficOf(kernel);
        SmallVector<NamedAttribute> fields{NamedAttribute(
            StringAttr::get(ctx, "bytes"), IntegerAttr::get(IntegerType::get(ctx, 64), bytes))};
        if (indirect)
          fields.push_back(NamedAttribute(StringAttr::get(ctx, "indirect"), UnitAttr::get(ctx)));
        if (describedNames.insert(kernel.getName()).second)
          described.push_back(
              NamedAttribute(kernel.getNameAttr(), DictionaryAttr::get(ctx, fields)));
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr ref = launch.getKernel();
      auto it = renamed.find({ref.getRootReference(), ref.getLeafReference()});
      if (it != renamed.end())
        launch.setKernelAttr(
            SymbolRefAttr::get(ref.getRootReference(), {FlatSymbolRefAttr::get(it->second)}));
    });
    module->setAttr(mt::kKernelsAttrName, DictionaryAttr::get(ctx, described));
  }
};

} // namespace
