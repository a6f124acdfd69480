//===- FusedAttentionKernel.cpp - pieces of the fused attention kernels ---===//
#include "FusedAttentionKernel.h"

#include "mt/Dialect/MT/IR/ElementFunctions.h"

using namespace mlir;

namespace mt {

SmallVector<Value> loop(Scalar s, int64_t count, ValueRange carried, ColumnFn body) {
  return forRange(s.b, s.l, count, carried,
                  [&](OpBuilder &b, Location l, Value j, ValueRange args) {
                    return body(Scalar{b, l}, j, args);
                  });
}

SmallVector<Value> loopTo(Scalar s, Value count, ValueRange carried, ColumnFn body) {
  return forRangeTo(s.b, s.l, count, carried,
                    [&](OpBuilder &b, Location l, Value j, ValueRange args) {
                      return body(Scalar{b, l}, j, args);
                    });
}

SmallVector<Value> AttentionProblem::outputAt(Index x, Value b, Value h, Value i, Value c) const {
  if (merged)
    return {b, i, x.add(x.mul(h, x.c(headDim)), c)};
  return {b, h, i, c};
}

Value AttentionProblem::keyLimit(Index x, Value i) const {
  if (!causal)
    return x.c(keys);
  // Query i sees keys j <= i + keys - queries.
  return x.min(x.add(i, x.c(keys - queries + 1)), x.c(keys));
}

Value AttentionProblem::queryStart(Index x, Value j) const {
  if (!causal)
    return x.c(0);
  return x.max(x.sub(j, x.c(keys - queries)), x.c(0));
}

Value AttentionProblem::sees(Scalar s, Value b, Value i, Value j) const {
  Index x{s.b, s.l};
  Value seen;
  if (causal)
    seen = x.lt(j, keyLimit(x, i));
  if (keyMask) {
    Value kept = s.at(keyMask, {b, j});
    seen = seen ? arith::AndIOp::create(s.b, s.l, seen, kept).getResult() : kept;
  }
  return seen;
}

Value AttentionProblem::dot(Scalar s, function_ref<Value(Scalar, Value)> a,
                            function_ref<Value(Scalar, Value)> b) const {
  return loop(s, headDim, s.c(compute, 0.0), [&](Scalar q, Value c, ValueRange acc) {
    return SmallVector<Value>{q.add(acc[0], q.mul(a(q, c), b(q, c)))};
  })[0];
}

Value AttentionProblem::score(Scalar s, Value b, Value h, Value kh, Value i, Value j) const {
  Value d = dot(
      s, [&](Scalar q, Value c) { return q.at(query, {b, h, i, c}); },
      [&](Scalar q, Value c) { return q.at(key, {b, kh, j, c}); });
  return s.mul(d, s.c(compute, scale));
}

Value AttentionProblem::dropped(Scalar s, Value p, Value b, Value h, Value i, Value j) const {
  if (!dropout)
    return p;
  Value keep = dropout->keepAt(s.b, s.l, {b, h, i, j});
  return keepScaled(s.b, s.l, keep, p, 1.0 / (1.0 - dropout->rate));
}

} // namespace mt
