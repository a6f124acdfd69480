//===- LowerGradOps.cpp - backward ops -------------------------------------===//
#include "IdChains.h"
#include "Lowerings.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/ElementFunctions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace mt {
namespace {

using Iter = utils::IteratorType;

Value cst(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
}
Value addF(OpBuilder &b, Location l, Value x, Value y) { return arith::AddFOp::create(b, l, x, y); }
Value mulF(OpBuilder &b, Location l, Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }
Value subF(OpBuilder &b, Location l, Value x, Value y) { return arith::SubFOp::create(b, l, x, y); }

/// Index `i` as an index value (from an integer id element).
Value asIndex(OpBuilder &b, Location l, Value i) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
}

/// Scatter-add of gradient rows into the table, deterministic and parallel
/// without atomics. The rows with one id form a chain in row order (`next`);
/// the first row of each id walks its chain for every column, adding in row
/// order, so each table element sums exactly as a sequential loop over the
/// rows would, bit for bit, on any target. The rows are independent (no two
/// first rows share an id) and the columns along a row (a GPU runs a warp
/// per row, a lane per column).
Lowered lowerEmbeddingGrad(EmbeddingGradOp op, LinalgBuilder &lb) {
  auto table = tensorOf(op.getResult());
  int64_t vocab = table.getDimSize(0), h = table.getDimSize(1);
  int64_t rows = tensorOf(op.getIds()).getNumElements();
  Value grad = lb.reshape(op.getGrad(), {rows, h}), ids = lb.reshape(op.getIds(), {rows});
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value init =
      op.getPlus() ? op.getPlus() : lb.filled(table.getShape(), table.getElementType(), 0.0);
  Value zero = lb.index(0);
  // A vocabulary shard holds rows [offset, offset + vocab); other ids add
  // nothing.
  Value offset = zero;
  if (op.getShard()) {
    Value i = scalarOf(b, loc, op.getShard());
    i = arith::MulIOp::create(b, loc, i,
                              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(vocab)));
    offset = asIndex(b, loc, i);
  }
  IdChains chains(lb, ids, rows, vocab, offset);
  Value next = chains.next();
  Value result = forEachRow(
      b, loc, rows, ValueRange{init}, [&](OpBuilder &rb, Location rl, Value r, ValueRange carried) {
        Value rawId = tensor::ExtractOp::create(rb, rl, ids, ValueRange{r});
        Value id = arith::SubIOp::create(rb, rl, asIndex(rb, rl, rawId), offset);
        Value inside = arith::AndIOp::create(
            rb, rl, arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::sge, id, zero),
            arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::slt, id,
                                  arith::ConstantIndexOp::create(rb, rl, vocab)));
        Value walks = arith::AndIOp::create(rb, rl, inside, chains.isFirst(rb, rl, r, rawId, id));
        // Rows that do not walk run no columns.
        Value columns =
            arith::SelectOp::create(rb, rl, walks, arith::ConstantIndexOp::create(rb, rl, h), zero);
        Value one = arith::ConstantIndexOp::create(rb, rl, 1);
        Value end = arith::ConstantIndexOp::create(rb, rl, rows);
        auto alongRow = scf::ForOp::create(
            rb, rl, zero, columns, one, carried,
            [&](OpBuilder &cb, Location cl, Value c, ValueRange acc) {
              Value start = tensor::ExtractOp::create(cb, cl, acc[0], ValueRange{id, c});
              auto walk = scf::WhileOp::create(
                  cb, cl, TypeRange{cb.getIndexType(), start.getType()}, ValueRange{r, start},
                  [&](OpBuilder &wb, Location wl, ValueRange s) {
                    Value more =
                        arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt, s[0], end);
                    scf::ConditionOp::create(wb, wl, more, s);
                  },
                  [&](OpBuilder &wb, Location wl, ValueRange s) {
                    Value g = tensor::ExtractOp::create(wb, wl, grad, ValueRange{s[0], c});
                    Value sum = addF(wb, wl, s[1], g);
                    Value n =
                        asIndex(wb, wl, tensor::ExtractOp::create(wb, wl, next, ValueRange{s[0]}));
                    scf::YieldOp::create(wb, wl, ValueRange{n, sum});
                  });
              Value updated =
                  tensor::InsertOp::create(cb, cl, walk.getResult(1), acc[0], ValueRange{id, c});
              scf::YieldOp::create(cb, cl, updated);
            });
        alongRow->setAttr(kAlongRowAttrName, rb.getUnitAttr());
        return SmallVector<Value>{alongRow.getResult(0)};
      })[0];
  return SmallVector<Value>{result};
}

Lowered lowerAttentionKVGrad(AttentionKVGradOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  auto lt = tensorOf(op.getLhs()), rt = tensorOf(op.getRhs());
  int64_t batch = lt.getDimSize(0), kvHeads = out.getDimSize(1);
  int64_t rows = lt.getDimSize(1) / kvHeads * lt.getDimSize(2); // group * queries
  // Query heads h = kh * group + g are contiguous per key head, so a key
  // head's query group and its query rows are one run of rows: the sum over
  // both is one reduction dimension, and the op a batched GEMM (dk = ds^T q,
  // dv = p^T dc) that mt-convert-contractions-to-blas hands to the library.
  Value lhs = lb.reshape(op.getLhs(), {batch, kvHeads, rows, lt.getDimSize(3)});
  Value rhs = lb.reshape(op.getRhs(), {batch, kvHeads, rows, rt.getDimSize(3)});
  MLIRContext *ctx = lb.builder().getContext();
  AffineExpr b = getAffineDimExpr(0, ctx), kh = getAffineDimExpr(1, ctx),
             j = getAffineDimExpr(2, ctx), d = getAffineDimExpr(3, ctx),
             r = getAffineDimExpr(4, ctx);
  return SmallVector<Value>{lb.contract(lhs, AffineMap::get(5, 0, {b, kh, r, j}, ctx), rhs,
                                        AffineMap::get(5, 0, {b, kh, r, d}, ctx), out.getShape(),
                                        AffineMap::get(5, 0, {b, kh, j, d}, ctx),
                                        {false, false, false, false, true})};
}

} // namespace

void populateGradLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<EmbeddingGradOp>(patterns, lowerEmbeddingGrad);
  addLowering<PositionEmbeddingGradOp>(
      patterns, [](PositionEmbeddingGradOp p, LinalgBuilder &lb) -> Lowered {
        auto table = tensorOf(p.getResult());
        Value zeros = lb.filled(table.getShape(), table.getElementType(), 0.0);
        return SmallVector<Value>{
            insertSlice(lb, p.getGrad(), zeros, {0, 0}, tensorOf(p.getGrad()).getShape())};
      });
  addLowering<BiasGeluGradOp>(patterns, [](BiasGeluGradOp g, LinalgBuilder &lb) -> Lowered {
    bool approx = g.getApproximate() == GeluApproximation::tanh;
    auto type = tensorOf(g.getInput());
    unsigned rank = type.getRank();
    return SmallVector<Value>{
        lb.generic({g.getGrad(), g.getInput(), g.getBias()},
                   {lb.identity(rank), lb.identity(rank), lb.suffixMap(rank, 1)},
                   lb.empty(type.getShape(), type.getElementType()), lb.identity(rank),
                   lb.parallel(rank), [&](OpBuilder &b, Location l, ValueRange a) {
                     return mulF(b, l, a[0], geluDerivative(b, l, addF(b, l, a[1], a[2]), approx));
                   })};
  });
  addLowering<AttentionKVGradOp>(patterns, lowerAttentionKVGrad);
  addLowering<AccumulateOp>(patterns, [](AccumulateOp a, LinalgBuilder &lb) -> Lowered {
    // Destination-passing: the accumulator is the output, so bufferization
    // adds in place when nothing reads the old value afterwards.
    unsigned rank = tensorOf(a.getInto()).getRank();
    return SmallVector<Value>{lb.generic(
        a.getValue(), lb.identity(rank), a.getInto(), lb.identity(rank), lb.parallel(rank),
        [](OpBuilder &b, Location l, ValueRange v) { return addF(b, l, v[1], v[0]); })};
  });
}

} // namespace mt
