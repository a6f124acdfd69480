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
  // Contractions: two operations per multiply-add, k per result element.
  auto contraction = dyn_cast<ContractionOpInterface>(op);
  int64_t k = contraction ? contraction.getContractionDepth() : 0;
  int64_t out = 0;
  for (Value r : op->getResults())
    out += elements(r);
  return k ? 2 * out * k : out;
}

} // namespace mt
