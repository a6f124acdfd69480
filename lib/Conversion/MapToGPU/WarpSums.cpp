//===- WarpSums.cpp - a sum of a whole buffer on one warp ------------------===//
#include "WarpSums.h"

#include "WarpRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace mt {
namespace {

/// Whether the body is `yield (element + sum)` or `yield (sum + element)`,
/// the element the input's block argument or its extf (`widen`).
bool isSumBody(Block &body, arith::ExtFOp &widen) {
  Value in = body.getArgument(0), sum = body.getArgument(1);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value element = add.getLhs() == sum ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != sum && add.getRhs() != sum) || element == sum)
    return false;
  widen = element.getDefiningOp<arith::ExtFOp>();
  if (widen)
    element = widen.getIn();
  size_t ops = 2 + (widen ? 1 : 0); // the add, the yield, the extf
  return element == in && body.getOperations().size() == ops;
}

} // namespace

bool sumOnOneWarp(IRRewriter &rewriter, linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != op.getNumLoops() || op.getNumLoops() == 0)
    return false;
  auto in = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!in || !out || out.getRank() != 0 || !out.getElementType().isF32() || !in.hasStaticShape() ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return false;
  arith::ExtFOp widen;
  if (!isSumBody(*op.getBlock(), widen))
    return false;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value zero = index(0), warp = index(kWarpSize);
  // One block of one warp.
  auto [blocks, lanes] = buildWarpLoops(rewriter, loc, index(1), 1);
  Value lane = lanes.getInductionVars()[1];
  Value input = op.getDpsInputs()[0], output = op.getDpsInits()[0];
  Value init = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  auto partial = scf::ForOp::create(
      rewriter, loc, lane, index(in.getNumElements()), warp, ValueRange{init},
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
        Value element = memref::LoadOp::create(b, l, input, at);
        if (widen)
          element = arith::ExtFOp::create(b, l, b.getF32Type(), element);
        scf::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, acc[0], element)});
      });
  Value total = gpu::SubgroupReduceOp::create(rewriter, loc, partial.getResult(0),
                                              gpu::AllReduceOperation::ADD,
                                              /*uniform=*/true, IntegerAttr());
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, zero);
  auto store = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  rewriter.setInsertionPoint(store.thenBlock()->getTerminator());
  Value old = memref::LoadOp::create(rewriter, loc, output, ValueRange{});
  memref::StoreOp::create(rewriter, loc, arith::AddFOp::create(rewriter, loc, old, total), output,
                          ValueRange{});
  rewriter.eraseOp(op);
  return true;
}

} // namespace mt
