//===- OpCost.cpp - what running an op again costs -------------------------===//
#include "mt/Analysis/OpCost.h"

#include "mt/Dialect/MT/IR/MTOps.h"

using namespace mlir;

namespace mt {

namespace {

int64_t elements(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() : 0;
}

} // namespace

int64_t opFlops(Operation *op) {
  // Contractions say what they do; the rest: one operation per element.
  if (auto contraction = dyn_cast<ContractionOpInterface>(op))
    if (int64_t flops = contraction.getFlops())
      return flops;
  int64_t out = 0;
  for (Value r : op->getResults())
    out += elements(r);
  return out;
}

} // namespace mt
