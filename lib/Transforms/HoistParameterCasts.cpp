//===- HoistParameterCasts.cpp - a stacked parameter cast once, not per layer --===//
//
// A bf16 step reads each layer's slice of an f32 stacked parameter through
// a cast: twelve small casts a parameter, each its own kernel launch on a
// GPU. Casting the stacked parameter once at the step's start and slicing
// the result reads and writes the same elements, with the same rounding,
// in one launch.
//
//===----------------------------------------------------------------------===//
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_HOISTPARAMETERCASTSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// convert(slice_layer(%stack, l)) -> slice_layer(%cast, l), `%cast` the
/// whole of `%stack` (an argument of `fn`) converted once at its start.
void hoistCasts(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  llvm::DenseMap<std::pair<Value, Type>, Value> wholeCasts;
  for (auto convert : llvm::make_early_inc_range(entry.getOps<ConvertOp>())) {
    auto slice = convert.getInput().getDefiningOp<SliceLayerOp>();
    auto stack = slice ? dyn_cast<BlockArgument>(slice.getInput()) : BlockArgument();
    if (!stack || stack.getOwner() != &entry)
      continue;
    Type element = cast<RankedTensorType>(convert.getType()).getElementType();
    Value &whole = wholeCasts[{stack, element}];
    if (!whole) {
      auto builder = OpBuilder::atBlockBegin(&entry);
      auto type = cast<RankedTensorType>(stack.getType()).clone(element);
      whole = ConvertOp::create(builder, convert.getLoc(), type, stack);
    }
    OpBuilder builder(convert);
    auto sliced = SliceLayerOp::create(builder, slice.getLoc(), convert.getType(), whole,
                                       slice.getLayerAttr());
    // No layer mark carried over: mt-outline-layers puts an unmarked slice
    // in each layer group that reads it, where it is a view, instead of
    // passing it from the forward group to the backward one (a copy).
    convert.replaceAllUsesWith(sliced.getResult());
    convert.erase();
    if (slice->use_empty())
      slice.erase();
  }
}

struct HoistParameterCastsPass : mt::impl::HoistParameterCastsPassBase<HoistParameterCastsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal())
        hoistCasts(fn);
  }
};

} // namespace
