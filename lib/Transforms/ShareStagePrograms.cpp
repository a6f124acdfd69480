//===- ShareStagePrograms.cpp - compile identical stage functions once ----===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/Hashing.h"

#include <map>

namespace mt {
#define GEN_PASS_DEF_SHARESTAGEPROGRAMSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Attributes only reports and the plan's description read (the stage, the
/// function a gradient or optimizer belongs to): equal programs may differ
/// in them.
constexpr llvm::StringLiteral kReportOnlyFunctionAttrs[] = {kStageAttrName, kGradientOfAttrName,
                                                            kModelAttrName};
constexpr llvm::StringLiteral kReportOnlyArgAttrs[] = {kFirstLayerAttrName, kSavedFromAttrName};

/// The smallest dropout layer in `fn`: what its layers are taken relative to.
std::optional<int64_t> firstKeyLayer(func::FuncOp fn) {
  std::optional<int64_t> first;
  fn.walk([&](DropoutKeyedOpInterface keyed) {
    if (std::optional<int64_t> layer = keyed.getKeyLayer())
      first = first ? std::min(*first, *layer) : *layer;
  });
  return first;
}

/// Dropout layers and ops' layers relative to `base` (mt-outline-layers
/// groups ops by the latter); without a base, ops' layers gone.
void makeLayersRelative(func::FuncOp fn, std::optional<int64_t> base) {
  fn.walk([&](Operation *op) {
    if (auto layer = op->getAttrOfType<IntegerAttr>(kLayerAttrName)) {
      if (base)
        op->setAttr(kLayerAttrName, IntegerAttr::get(layer.getType(), layer.getInt() - *base));
      else
        op->removeAttr(kLayerAttrName);
    }
    if (auto keyed = dyn_cast<DropoutKeyedOpInterface>(op))
      if (std::optional<int64_t> layer = keyed.getKeyLayer())
        keyed.setKeyLayer(*layer - *base);
  });
}

/// The text two functions share exactly when they compile to the same code
/// (up to the layer offset): the generic form of a copy with its name, its
/// report-only attributes and its absolute layers taken out.
std::string programText(func::FuncOp fn, std::optional<int64_t> base) {
  OwningOpRef<func::FuncOp> copy(fn.clone());
  copy->setSymName("program");
  for (llvm::StringLiteral name : kReportOnlyFunctionAttrs)
    (*copy)->removeAttr(name);
  for (unsigned i = 0; i < copy->getNumArguments(); ++i)
    for (llvm::StringLiteral name : kReportOnlyArgAttrs)
      copy->removeArgAttr(i, name);
  makeLayersRelative(*copy, base);
  std::string text;
  llvm::raw_string_ostream os(text);
  // Without locations, whatever --mlir-print-debuginfo says: where an op
  // came from must not decide what is shared.
  copy->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

struct Group {
  std::string text; // of the first member
  std::vector<std::pair<func::FuncOp, std::optional<int64_t>>> members;
};

/// Keeps `group`'s first function for all of its members.
void share(Group &group, MLIRContext *context) {
  auto [kept, keptBase] = group.members.front();
  Builder b(context);
  SmallVector<NamedAttribute> callers;
  for (auto [fn, base] : group.members)
    callers.push_back(b.getNamedAttr(fn.getSymName(), b.getI64IntegerAttr(base.value_or(0))));
  if (keptBase) {
    makeLayersRelative(kept, keptBase);
    auto offsetType = RankedTensorType::get({}, b.getI64Type());
    unsigned index = kept.getNumArguments();
    if (failed(kept.insertArgument(
            index, offsetType,
            b.getDictionaryAttr(b.getNamedAttr(kLayerOffsetAttrName, b.getUnitAttr())),
            kept.getLoc())))
      llvm_unreachable("a function without a body cannot be shared");
  }
  kept->setAttr(kSharedCodeAttrName, b.getDictionaryAttr(callers));
  for (auto &member : llvm::drop_begin(group.members))
    member.first.erase();
}

struct ShareStageProgramsPass : mt::impl::ShareStageProgramsPassBase<ShareStageProgramsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Groups by a hash of their text; the text decides within a bucket.
    std::map<llvm::hash_code, std::vector<Group>> buckets;
    std::vector<std::pair<llvm::hash_code, size_t>> order;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kRoleAttrName) || fn.isExternal() || fn->hasAttr(kSharedCodeAttrName))
        continue;
      std::optional<int64_t> base = firstKeyLayer(fn);
      std::string text = programText(fn, base);
      llvm::hash_code hash = llvm::hash_value(text);
      std::vector<Group> &bucket = buckets[hash];
      auto same = llvm::find_if(bucket, [&](const Group &g) { return g.text == text; });
      if (same != bucket.end()) {
        same->members.push_back({fn, base});
        continue;
      }
      order.push_back({hash, bucket.size()});
      bucket.push_back(Group{std::move(text), {{fn, base}}});
    }
    for (auto [hash, index] : order) {
      Group &group = buckets[hash][index];
      if (group.members.size() > 1)
        share(group, &getContext());
    }
  }
};

} // namespace
