//===- WarpSums.cpp - sums of whole buffers, a warp each ------------------===//
#include "WarpSums.h"

#include "BufferRanges.h"
#include "SiblingKernels.h"
#include "WarpRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace mt {
namespace {

/// The value the body adds to the sum, when the body is
/// `yield (element + sum)` or `yield (sum + element)` and the element is
/// computed from the input's element alone (itself, widened from 16 bits,
/// squared for a norm) by ops without memory effects; null otherwise.
Value addedElement(Block &body) {
  Value in = body.getArgument(0), sum = body.getArgument(1);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return {};
  Value element = add.getLhs() == sum ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != sum && add.getRhs() != sum) || element == sum)
    return {};
  for (Operation &op : body.without_terminator()) {
    if (&op == add.getOperation())
      continue;
    if (!isMemoryEffectFree(&op) || op.getNumRegions() ||
        llvm::is_contained(op.getOperands(), sum))
      return {};
  }
  return element;
}

/// Ops with memory effects a sum may move past to join the sums before it.
constexpr size_t kMaxPassed = 64;

/// A sum of a whole buffer that a warp can take (see the header), with the
/// fill of its output just before it, if any.
struct WarpSum {
  linalg::GenericOp op;
  linalg::FillOp fill;
  Value element; // what the body adds (addedElement)
};

std::optional<WarpSum> matchWarpSum(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != op.getNumLoops() || op.getNumLoops() == 0)
    return std::nullopt;
  auto in = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!in || !out || out.getRank() != 0 || !out.getElementType().isF32() || !in.hasStaticShape() ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return std::nullopt;
  WarpSum sum{op, {}, {}};
  sum.element = addedElement(*op.getBlock());
  if (!sum.element)
    return std::nullopt;
  // The fill of the output, past ops without memory effects.
  for (Operation *at = op->getPrevNode(); at; at = at->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(at)) {
      if (fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == op.getDpsInits()[0])
        sum.fill = fill;
      break;
    }
    if (!isMemoryEffectFree(at) || at->getNumRegions())
      break;
  }
  return sum;
}

/// Lane `lane`'s part of `sum`: its elements in order, the warp's total,
/// lane 0 adding it to the output's start (the fill's value, or what the
/// output holds).
void emitSum(IRRewriter &rewriter, WarpSum sum, Value lane) {
  Location loc = sum.op.getLoc();
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value input = sum.op.getDpsInputs()[0], output = sum.op.getDpsInits()[0];
  auto in = cast<MemRefType>(input.getType());
  Value init = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  auto partial = scf::ForOp::create(
      rewriter, loc, lane, index(in.getNumElements()), index(kWarpSize), ValueRange{init},
      [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
        // Element i in row-major order.
        SmallVector<Value> at(in.getRank());
        Value rest = i;
        for (int64_t d = in.getRank() - 1; d >= 0; --d) {
          Value size = arith::ConstantIndexOp::create(b, l, in.getDimSize(d));
          at[d] = d ? arith::RemUIOp::create(b, l, rest, size).getResult() : rest;
          if (d)
            rest = arith::DivUIOp::create(b, l, rest, size);
        }
        // The body's ops, but the add, on the loaded element.
        IRMapping map;
        Block *body = sum.op.getBlock();
        map.map(body->getArgument(0), memref::LoadOp::create(b, l, input, at).getResult());
        Operation *add = body->getTerminator()->getOperand(0).getDefiningOp();
        for (Operation &op : body->without_terminator())
          if (&op != add)
            b.clone(op, map);
        Value element = map.lookupOrDefault(sum.element);
        scf::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, acc[0], element)});
      });
  Value total = gpu::SubgroupReduceOp::create(rewriter, loc, partial.getResult(0),
                                              gpu::AllReduceOperation::ADD,
                                              /*uniform=*/true, IntegerAttr());
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, index(0));
  auto store = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(store.thenBlock()->getTerminator());
  Value start = sum.fill ? sum.fill.getDpsInputs()[0]
                         : memref::LoadOp::create(rewriter, loc, output, ValueRange{}).getResult();
  memref::StoreOp::create(rewriter, loc, arith::AddFOp::create(rewriter, loc, start, total),
                          output, ValueRange{});
}

/// Whether `later` may run beside the sums of `group` (and its fill before
/// them): it reads no output of theirs and writes nothing they touch.
bool independentOf(WarpSum later, ArrayRef<WarpSum> group) {
  BufferRange in = rangeOf(later.op.getDpsInputs()[0]), out = rangeOf(later.op.getDpsInits()[0]);
  return llvm::all_of(group, [&](WarpSum s) {
    BufferRange sIn = rangeOf(s.op.getDpsInputs()[0]), sOut = rangeOf(s.op.getDpsInits()[0]);
    return !mayOverlap(in, sOut) && !mayOverlap(out, sOut) && !mayOverlap(out, sIn);
  });
}

/// One launch for `group`: block k runs sum k on its one warp.
void launchSums(IRRewriter &rewriter, ArrayRef<WarpSum> group) {
  WarpSum lastSum = group.back();
  linalg::GenericOp last = lastSum.op;
  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  Value count = arith::ConstantIndexOp::create(rewriter, loc, group.size());
  auto [blocks, lanes] = buildWarpLoops(rewriter, loc, count, 1);
  Value block = blocks.getInductionVars()[0], lane = lanes.getInductionVars()[1];
  for (auto [k, sum] : llvm::enumerate(group)) {
    OpBuilder::InsertionGuard guard(rewriter);
    if (group.size() > 1) {
      Value mine = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, block,
                                         arith::ConstantIndexOp::create(rewriter, loc, k));
      auto only = scf::IfOp::create(rewriter, loc, mine, /*withElseRegion=*/false);
      rewriter.setInsertionPoint(only.thenBlock()->getTerminator());
    }
    emitSum(rewriter, sum, lane);
  }
  for (WarpSum sum : group) {
    if (sum.fill)
      rewriter.eraseOp(sum.fill);
    rewriter.eraseOp(sum.op);
  }
}

} // namespace

void sumsOnWarps(IRRewriter &rewriter, func::FuncOp fn) {
  SmallVector<SmallVector<WarpSum>> groups;
  // The ops with memory effects since the group's last sum, which its sums
  // move past when the next one joins: each must be independent of them.
  SmallVector<Operation *> passed;
  for (Operation &op : fn.getBody().front()) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    std::optional<WarpSum> sum = generic ? matchWarpSum(generic) : std::nullopt;
    if (sum) {
      auto movable = [&](Operation *between) {
        return between == sum->fill.getOperation() ||
               llvm::none_of(groups.back(), [&](WarpSum s) {
                 return mayConflict(between, s.op) ||
                        (s.fill && mayConflict(between, s.fill));
               });
      };
      if (!groups.empty() && passed.size() < kMaxPassed && independentOf(*sum, groups.back()) &&
          llvm::all_of(passed, movable)) {
        groups.back().push_back(*sum);
      } else {
        groups.push_back({*sum});
      }
      passed.clear();
      continue;
    }
    if (!groups.empty() && !(isMemoryEffectFree(&op) && !op.getNumRegions()) &&
        !isa<memref::AllocOp>(op))
      passed.push_back(&op);
  }
  for (ArrayRef<WarpSum> group : groups)
    launchSums(rewriter, group);
}

} // namespace mt
