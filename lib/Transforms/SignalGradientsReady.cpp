//===- SignalGradientsReady.cpp - where each gradient slice is final ------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_SIGNALGRADIENTSREADYPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// A point after which one accumulator (or one layer of it) is not written.
struct ReadyPoint {
  Value value;
  int64_t accumulator;
  std::optional<int64_t> layer;
};

/// Follows accumulator argument `arg`'s chain of writes back from the value
/// the function returns for it.
void collect(func::FuncOp fn, unsigned arg, Value returned, SmallVectorImpl<ReadyPoint> &out) {
  Value current = returned;
  bool sliced = false;
  while (current != fn.getArgument(arg)) {
    Operation *def = current.getDefiningOp();
    if (!def || def->getBlock() != &fn.getBody().front())
      return;
    if (auto insert = dyn_cast<InsertLayerOp>(def)) {
      out.push_back({current, arg, insert.getLayer()});
      sliced = true;
      current = insert.getInto();
      continue;
    }
    // A write of the whole: final here unless a layer was written after it.
    if (!sliced)
      out.push_back({current, arg, std::nullopt});
    return;
  }
}

struct SignalGradientsReadyPass : mt::impl::SignalGradientsReadyPassBase<SignalGradientsReadyPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (roleOf(fn) != FunctionRole::train_step || fn.isExternal())
        continue;
      auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
      SmallVector<ReadyPoint> points;
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        if (auto arg = fn.getResultAttrOfType<IntegerAttr>(i, kInPlaceOfAttrName))
          collect(fn, static_cast<unsigned>(arg.getInt()), ret.getOperand(i), points);
      // Numbered in the order the step reaches them.
      llvm::stable_sort(points, [](const ReadyPoint &a, const ReadyPoint &b) {
        return a.value.getDefiningOp()->isBeforeInBlock(b.value.getDefiningOp());
      });
      OpBuilder builder(&getContext());
      int64_t index = 0;
      for (const ReadyPoint &p : points) {
        builder.setInsertionPointAfter(p.value.getDefiningOp());
        auto ready = GradientReadyOp::create(
            builder, p.value.getLoc(), p.value, builder.getI64IntegerAttr(index++),
            builder.getI64IntegerAttr(p.accumulator),
            p.layer ? builder.getI64IntegerAttr(*p.layer) : IntegerAttr());
        ready->setAttr(kBackwardAttrName, builder.getUnitAttr());
      }
    }
  }
};

} // namespace
