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

/// Extent of dimension `fromEnd` counted from the last (0: the last).
int64_t trailing(Value v, unsigned fromEnd) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() <= fromEnd)
    return 0;
  int64_t d = t.getDimSize(t.getRank() - 1 - fromEnd);
  return ShapedType::isDynamic(d) ? 0 : d;
}

} // namespace

int64_t opFlops(Operation *op) {
  // Contractions: two operations per multiply-add, k per result element.
  int64_t k = 0;
  if (auto l = dyn_cast<LinearOp>(op))
    k = trailing(l.getInput(), 0);
  else if (auto m = dyn_cast<MatmulOp>(op))
    k = trailing(m.getLhs(), m.getTransposeLhs() ? 1 : 0);
  else if (auto s = dyn_cast<AttentionScoresOp>(op))
    k = trailing(s.getQuery(), 0);
  else if (auto c = dyn_cast<AttentionContextOp>(op))
    k = trailing(c.getProbs(), 0);
  int64_t out = 0;
  for (Value r : op->getResults())
    out += elements(r);
  return k ? 2 * out * k : out;
}

} // namespace mt
