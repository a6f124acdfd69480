//===- GradientBuilder.cpp - what an op's VJP rule builds with -------------===//
#include "mt/Dialect/MT/IR/GradientBuilder.h"

#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

void GradientBuilder::accumulate(Value v, Value delta) {
  if (!active.contains(v) || !isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType()))
    return;
  Value &slot = adjoints[v];
  slot = slot ? AddOp::create(b, loc_, slot.getType(), slot, delta).getResult() : delta;
}

void GradientBuilder::accumulateLayer(Value stacked, int64_t layer, Value delta) {
  auto &perLayer = layerAdjoints[stacked];
  perLayer.resize(cast<RankedTensorType>(stacked.getType()).getDimSize(0));
  Value &slot = perLayer[layer];
  slot = slot ? AddOp::create(b, loc_, slot.getType(), slot, delta).getResult() : delta;
}

Value GradientBuilder::zeros(Type type) { return ZerosOp::create(b, loc_, type); }

Value GradientBuilder::sumTo(Value grad, Type target) {
  if (grad.getType() == target)
    return grad;
  return SumToOp::create(b, loc_, target, grad);
}

Value GradientBuilder::flatten(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 2)
    return v;
  int64_t cols = t.getShape().back();
  auto flat = RankedTensorType::get({t.getNumElements() / cols, cols}, t.getElementType());
  return ReshapeOp::create(b, loc_, flat, v);
}

} // namespace mt
