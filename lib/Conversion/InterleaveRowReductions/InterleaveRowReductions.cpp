//===- InterleaveRowReductions.cpp - row sums as independent partial sums ---===//
//
// A row kernel's sum along a row is one chain of dependent adds; on the CPU
// that chain, not memory or arithmetic, bounds the softmax and cross-entropy
// over a 50257-wide vocabulary. Lane k of `lanes` partial results takes
// columns k, k + lanes, ...; the lanes meet in a fixed tree at the end, so
// the result depends on the width alone.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Conversion/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mt {
#define GEN_PASS_DEF_INTERLEAVEROWREDUCTIONSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// A row loop's carried values: sums and maxima (`carried = combine(carried,
/// element)`, nothing else reading them) split into lanes; the rest (the
/// row being written) threaded through the columns in their order.
struct Carried {
  SmallVector<unsigned> reduced, threaded; // iter_arg positions
  SmallVector<Operation *> combiners;      // per reduced position
};

/// Whether `root` depends, inside `loop`, on a reduced iter_arg or combiner.
bool readsReductions(scf::ForOp loop, Value root, const Carried &c) {
  SmallVector<Value> work{root};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      for (unsigned i : c.reduced)
        if (arg == loop.getRegionIterArgs()[i])
          return true;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def) || !seen.insert(def).second)
      continue;
    if (llvm::is_contained(c.combiners, def))
      return true;
    // Values used inside a nested region count too.
    def->walk([&](Operation *inner) { llvm::append_range(work, inner->getOperands()); });
  }
  return false;
}

std::optional<Carried> classify(scf::ForOp loop) {
  Carried c;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    Value yielded = yield.getOperand(i);
    Operation *combine = arg.hasOneUse() ? *arg.user_begin() : nullptr;
    if (isa<FloatType>(arg.getType()) && combine &&
        isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp>(combine) &&
        combine->getResult(0) == yielded && combine->getBlock() == loop.getBody() &&
        combine->getResult(0).hasOneUse()) {
      c.reduced.push_back(static_cast<unsigned>(i));
      c.combiners.push_back(combine);
    } else {
      c.threaded.push_back(static_cast<unsigned>(i));
    }
  }
  if (c.reduced.empty())
    return std::nullopt;
  // A lane's element, and what the loop threads, must not see partial sums.
  for (auto [k, i] : llvm::enumerate(c.reduced)) {
    Operation *combine = c.combiners[k];
    Value arg = loop.getRegionIterArgs()[i];
    Value element = combine->getOperand(0) == arg ? combine->getOperand(1) : combine->getOperand(0);
    if (element == arg || readsReductions(loop, element, c))
      return std::nullopt;
  }
  for (unsigned i : c.threaded)
    if (readsReductions(loop, yield.getOperand(i), c))
      return std::nullopt;
  return c;
}

/// combine(x, y) as the loop's combiner `like` does it.
Value combineLike(OpBuilder &b, Operation *like, Value x, Value y) {
  IRMapping map;
  map.map(like->getOperand(0), x);
  map.map(like->getOperand(1), y);
  return b.clone(*like, map)->getResult(0);
}

void interleave(scf::ForOp loop, const Carried &c, int64_t width, int64_t lanes) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned t = c.threaded.size(), m = c.reduced.size();
  int64_t blocks = width / lanes;
  // Iter_args: the threaded values, then lane-major partial results.
  SmallVector<Value> inits;
  for (unsigned i : c.threaded)
    inits.push_back(loop.getInitArgs()[i]);
  for (int64_t k = 0; k < lanes; ++k)
    for (unsigned i : c.reduced)
      inits.push_back(loop.getInitArgs()[i]);
  auto constant = [&](OpBuilder &at, int64_t v) {
    return arith::ConstantIndexOp::create(at, loc, v).getResult();
  };
  Value zero = constant(b, 0), count = constant(b, blocks), one = constant(b, 1);
  auto blocked = scf::ForOp::create(
      b, loc, zero, count, one, inits,
      [&](OpBuilder &nb, Location nl, Value block, ValueRange carried) {
        Value first = arith::MulIOp::create(nb, nl, block, constant(nb, lanes));
        SmallVector<Value> threaded(carried.take_front(t)), partial;
        for (int64_t k = 0; k < lanes; ++k) {
          IRMapping map;
          map.map(loop.getInductionVar(),
                  arith::AddIOp::create(nb, nl, first, constant(nb, k)).getResult());
          for (unsigned x = 0; x < t; ++x)
            map.map(loop.getRegionIterArgs()[c.threaded[x]], threaded[x]);
          for (unsigned x = 0; x < m; ++x)
            map.map(loop.getRegionIterArgs()[c.reduced[x]], carried[t + k * m + x]);
          for (Operation &op : loop.getBody()->without_terminator())
            nb.clone(op, map);
          Operation *yield = loop.getBody()->getTerminator();
          for (unsigned x = 0; x < t; ++x)
            threaded[x] = map.lookup(yield->getOperand(c.threaded[x]));
          for (unsigned x = 0; x < m; ++x)
            partial.push_back(map.lookup(yield->getOperand(c.reduced[x])));
        }
        SmallVector<Value> next(threaded);
        llvm::append_range(next, partial);
        scf::YieldOp::create(nb, nl, next);
      });
  blocked->setAttrs(loop->getAttrs());
  // The loop's results: threaded ones as they came out, the lanes met
  // pairwise: (0+1)+(2+3), then up the tree.
  SmallVector<Value> results(loop.getNumResults());
  for (unsigned x = 0; x < t; ++x)
    results[c.threaded[x]] = blocked.getResult(x);
  for (unsigned x = 0; x < m; ++x) {
    SmallVector<Value> level;
    for (int64_t k = 0; k < lanes; ++k)
      level.push_back(blocked.getResult(t + k * m + x));
    while (level.size() > 1) {
      SmallVector<Value> up;
      for (size_t k = 0; k + 1 < level.size(); k += 2)
        up.push_back(combineLike(b, c.combiners[x], level[k], level[k + 1]));
      if (level.size() % 2)
        up.push_back(level.back());
      level = std::move(up);
    }
    results[c.reduced[x]] = level.front();
  }
  // The columns past the last whole block, as the loop took them.
  if (blocks * lanes < width) {
    Value start = constant(b, blocks * lanes);
    auto tail = cast<scf::ForOp>(b.clone(*loop));
    tail.getLowerBoundMutable().assign(start);
    tail.getInitArgsMutable().assign(results);
    results.assign(tail.getResults().begin(), tail.getResults().end());
  }
  loop.replaceAllUsesWith(results);
  loop.erase();
}

struct InterleaveRowReductionsPass
    : mt::impl::InterleaveRowReductionsPassBase<InterleaveRowReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (lanes < 1) {
      getOperation()->emitError("mt-interleave-row-reductions: lanes must be at least 1, got ")
          << lanes;
      return signalPassFailure();
    }
    if (lanes == 1)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(mt::kAlongRowAttrName))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      APInt lower, upper, step;
      if (loop.getNumRegionIterArgs() == 0 ||
          !matchPattern(loop.getLowerBound(), m_ConstantInt(&lower)) || !lower.isZero() ||
          !matchPattern(loop.getStep(), m_ConstantInt(&step)) || !step.isOne() ||
          !matchPattern(loop.getUpperBound(), m_ConstantInt(&upper)))
        continue;
      // Fewer than two blocks gain nothing.
      int64_t width = upper.getSExtValue();
      if (width < 2 * lanes)
        continue;
      if (std::optional<Carried> carried = classify(loop))
        interleave(loop, *carried, width, lanes);
    }
  }
};

} // namespace
