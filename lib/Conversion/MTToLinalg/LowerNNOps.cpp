//===- LowerNNOps.cpp - embeddings, dense, norms, activations, loss --------===//
#include "DropoutKeep.h"
#include "Lowerings.h"

#include "mt/Dialect/MT/IR/ElementFunctions.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace mt {

double negInf() { return -std::numeric_limits<double>::infinity(); }

namespace {

using Iter = utils::IteratorType;

Value addF(OpBuilder &b, Location l, Value x, Value y) { return arith::AddFOp::create(b, l, x, y); }
Value mulF(OpBuilder &b, Location l, Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }

Lowered lowerEmbedding(EmbeddingOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  unsigned rank = out.getRank();
  Value table = op.getTable();
  int64_t vocab = tensorOf(table).getDimSize(0);
  // A vocabulary shard holds rows [offset, offset + vocab).
  Value offset;
  if (op.getShard()) {
    OpBuilder &b = lb.builder();
    Value i = scalarOf(b, lb.location(), op.getShard());
    i = arith::MulIOp::create(
        b, lb.location(), i,
        arith::ConstantOp::create(b, lb.location(), b.getI64IntegerAttr(vocab)));
    offset = arith::IndexCastOp::create(b, lb.location(), b.getIndexType(), i);
  }
  Type t = out.getElementType();
  Value result = lb.generic(
      op.getIds(), lb.dropLastMap(rank), lb.empty(out.getShape(), t), lb.identity(rank),
      lb.parallel(rank), [&](OpBuilder &b, Location l, ValueRange a) {
        // Out-of-range ids are clamped; the data loader rejects them first.
        Value id = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value last = arith::ConstantIndexOp::create(b, l, vocab - 1);
        Value inside;
        if (offset) {
          id = arith::SubIOp::create(b, l, id, offset);
          inside = arith::AndIOp::create(
              b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, id, zero),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, id, last));
        }
        id = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, id, zero), last);
        Value h = linalg::IndexOp::create(b, l, rank - 1);
        Value row = tensor::ExtractOp::create(b, l, table, ValueRange{id, h});
        if (!inside)
          return row;
        return arith::SelectOp::create(b, l, inside, row,
                                       arith::ConstantOp::create(b, l, b.getFloatAttr(t, 0.0)))
            .getResult();
      });
  return SmallVector<Value>{result};
}

Lowered lowerPositionEmbedding(PositionEmbeddingOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  OpBuilder &b = lb.builder();
  if (op.getPosition() && tensorOf(op.getPosition()).getRank() == 1) {
    // A position per row (a ragged batch): row r's token s reads table row
    // position[r] + s, clamped (a left-padding token's is negative).
    int64_t last = tensorOf(op.getTable()).getDimSize(0) - 1;
    Value table = op.getTable(), rows = op.getPosition();
    return SmallVector<Value>{lb.generic(
        ValueRange{}, {}, lb.empty(out.getShape(), out.getElementType()), lb.identity(3),
        lb.parallel(3), [&](OpBuilder &gb, Location l, ValueRange) {
          Value r = linalg::IndexOp::create(gb, l, 0), s = linalg::IndexOp::create(gb, l, 1);
          Value start = arith::IndexCastOp::create(
              gb, l, gb.getIndexType(), tensor::ExtractOp::create(gb, l, rows, ValueRange{r}));
          Value row = arith::AddIOp::create(gb, l, start, s);
          row = arith::MinSIOp::create(
              gb, l, arith::MaxSIOp::create(gb, l, row, arith::ConstantIndexOp::create(gb, l, 0)),
              arith::ConstantIndexOp::create(gb, l, last));
          Value column = linalg::IndexOp::create(gb, l, 2);
          return tensor::ExtractOp::create(gb, l, table, ValueRange{row, column}).getResult();
        })};
  }
  if (op.getPosition()) {
    // Rows [position, position + seq), kept in the table, gathered: a
    // kernel reads the table at computed rows rather than a view whose
    // offset is known only at run time.
    int64_t last = tensorOf(op.getTable()).getDimSize(0) - out.getDimSize(0);
    Value start = clampedIndexOf(b, lb.location(), op.getPosition(), 0, last);
    Value table = op.getTable();
    return SmallVector<Value>{lb.generic(
        ValueRange{}, {}, lb.empty(out.getShape(), out.getElementType()), lb.identity(2),
        lb.parallel(2), [&](OpBuilder &gb, Location l, ValueRange) {
          Value row = arith::AddIOp::create(gb, l, start, linalg::IndexOp::create(gb, l, 0));
          Value column = linalg::IndexOp::create(gb, l, 1);
          return tensor::ExtractOp::create(gb, l, table, ValueRange{row, column}).getResult();
        })};
  }
  Value slice = tensor::ExtractSliceOp::create(
      b, lb.location(), out, op.getTable(), ValueRange{}, ValueRange{}, ValueRange{},
      b.getDenseI64ArrayAttr({0, 0}), b.getDenseI64ArrayAttr(out.getShape()),
      b.getDenseI64ArrayAttr({1, 1}));
  return SmallVector<Value>{slice};
}

Lowered lowerLinear(LinearOp op, LinalgBuilder &lb) {
  auto in = tensorOf(op.getInput()), out = tensorOf(op.getResult());
  int64_t k = in.getShape().back(), n = out.getShape().back();
  int64_t rows = in.getNumElements() / k;
  MLIRContext *ctx = lb.builder().getContext();
  AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx),
             kk = getAffineDimExpr(2, ctx);
  Value x = lb.reshape(op.getInput(), {rows, k});
  Value y = lb.contract(x, AffineMap::get(3, 0, {r, kk}, ctx), op.getWeight(),
                        AffineMap::get(3, 0, {c, kk}, ctx), {rows, n},
                        AffineMap::get(3, 0, {r, c}, ctx), {false, false, true});
  if (op.getBias())
    y = lb.generic({y, op.getBias()}, {lb.identity(2), lb.suffixMap(2, 1)},
                   lb.empty({rows, n}, out.getElementType()), lb.identity(2), lb.parallel(2),
                   [](OpBuilder &b, Location l, ValueRange a) { return addF(b, l, a[0], a[1]); });
  return SmallVector<Value>{lb.reshape(y, out.getShape())};
}

Lowered lowerMatmul(MatmulOp op, LinalgBuilder &lb) {
  auto lhs = tensorOf(op.getLhs()), rhs = tensorOf(op.getRhs());
  auto out = tensorOf(op.getResult());
  unsigned batch = lhs.getRank() - 2, numDims = batch + 3;
  MLIRContext *ctx = lb.builder().getContext();
  SmallVector<AffineExpr> b;
  for (unsigned d = 0; d < batch; ++d)
    b.push_back(getAffineDimExpr(d, ctx));
  AffineExpr m = getAffineDimExpr(batch, ctx), n = getAffineDimExpr(batch + 1, ctx),
             k = getAffineDimExpr(batch + 2, ctx);
  SmallVector<AffineExpr> l(b), r, o(b);
  l.append(op.getTransposeLhs() ? SmallVector<AffineExpr>{k, m} : SmallVector<AffineExpr>{m, k});
  if (rhs.getRank() != 2)
    r.append(b);
  r.append(op.getTransposeRhs() ? SmallVector<AffineExpr>{n, k} : SmallVector<AffineExpr>{k, n});
  o.append({m, n});
  SmallVector<bool> reduction(numDims, false);
  reduction.back() = true;
  return SmallVector<Value>{lb.contract(op.getLhs(), AffineMap::get(numDims, 0, l, ctx),
                                        op.getRhs(), AffineMap::get(numDims, 0, r, ctx),
                                        out.getShape(), AffineMap::get(numDims, 0, o, ctx),
                                        reduction, op.getPlus(), out.getElementType())};
}

Lowered lowerDropout(DropoutOp op, LinalgBuilder &lb) {
  double rate = op.getRate().convertToDouble();
  if (rate == 0.0)
    return SmallVector<Value>{op.getInput()};
  DropoutKeep keep(DropoutKey::of(op), tensorOf(op.getInput()).getShape(), lb);
  Value result = lb.map(op.getInput(), op.getInput(), [&](OpBuilder &nb, Location l, ValueRange a) {
    return keepScaled(nb, l, keep.keep(nb, l), a[0], 1.0 / (1.0 - rate));
  });
  return SmallVector<Value>{result};
}

Lowered lowerDropoutMask(DropoutMaskOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getResult());
  DropoutKeep keep(DropoutKey::of(op), type.getShape(), lb);
  Value init = lb.empty(type.getShape(), type.getElementType());
  unsigned rank = type.getRank();
  Value result =
      lb.generic({}, {}, init, lb.identity(rank), lb.parallel(rank),
                 [&](OpBuilder &nb, Location l, ValueRange) { return keep.keep(nb, l); });
  return SmallVector<Value>{result};
}

/// One kernel: residual + dropout(input + bias), the mask mt.dropout draws
/// with the same key.
Lowered lowerBiasDropoutAdd(BiasDropoutAddOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  unsigned rank = type.getRank();
  double rate = op.getRate().convertToDouble();
  std::optional<DropoutKeep> keep;
  if (rate > 0.0)
    keep.emplace(DropoutKey::of(op), type.getShape(), lb);
  Value result = lb.generic({op.getInput(), op.getBias(), op.getResidual()},
                            {lb.identity(rank), lb.suffixMap(rank, 1), lb.identity(rank)},
                            lb.empty(type.getShape(), type.getElementType()), lb.identity(rank),
                            lb.parallel(rank), [&](OpBuilder &nb, Location l, ValueRange a) {
                              Value x = addF(nb, l, a[0], a[1]);
                              if (keep)
                                x = keepScaled(nb, l, keep->keep(nb, l), x, 1.0 / (1.0 - rate));
                              return addF(nb, l, a[2], x);
                            });
  return SmallVector<Value>{result};
}

Lowered lowerSplit(SplitOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getInput());
  OpBuilder &b = lb.builder();
  int64_t dim = op.getDimAttr().getInt(), offset = 0;
  SmallVector<Value> pieces;
  for (auto [result, size] : llvm::zip(op.getResults(), op.getSizes())) {
    SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()),
        strides(type.getRank(), 1);
    offsets[dim] = offset;
    sizes[dim] = size;
    offset += size;
    pieces.push_back(tensor::ExtractSliceOp::create(
        b, lb.location(), cast<RankedTensorType>(result.getType()), op.getInput(), ValueRange{},
        ValueRange{}, ValueRange{}, b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
        b.getDenseI64ArrayAttr(strides)));
  }
  return pieces;
}

/// Any pointwise op: one kernel over its operands, the op's own scalar.
struct PointwiseLowering : OpInterfaceConversionPattern<PointwiseOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult matchAndRewrite(PointwiseOpInterface pointwise, ArrayRef<Value>,
                                ConversionPatternRewriter &rewriter) const override {
    Operation *op = pointwise;
    Operation *before = op->getPrevNode();
    LinalgBuilder lb(rewriter, op->getLoc());
    Value result =
        lb.map(op->getOperands(), op->getResult(0), [&](OpBuilder &b, Location l, ValueRange a) {
          return pointwise.buildScalar(b, l, a);
        });
    nameAfter(op, before);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNNLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<EmbeddingOp>(patterns, lowerEmbedding);
  addLowering<PositionEmbeddingOp>(patterns, lowerPositionEmbedding);
  addLowering<LinearOp>(patterns, lowerLinear);
  addLowering<MatmulOp>(patterns, lowerMatmul);
  addLowering<BiasGeluOp>(patterns, [](BiasGeluOp g, LinalgBuilder &lb) -> Lowered {
    // One kernel: the bias is added in registers, never stored.
    bool approx = g.getApproximate() == GeluApproximation::tanh;
    auto type = tensorOf(g.getInput());
    unsigned rank = type.getRank();
    return SmallVector<Value>{
        lb.generic({g.getInput(), g.getBias()}, {lb.identity(rank), lb.suffixMap(rank, 1)},
                   lb.empty(type.getShape(), type.getElementType()), lb.identity(rank),
                   lb.parallel(rank), [&](OpBuilder &b, Location l, ValueRange a) {
                     return gelu(b, l, addF(b, l, a[0], a[1]), approx);
                   })};
  });
  addLowering<DropoutOp>(patterns, lowerDropout);
  addLowering<DropoutMaskOp>(patterns, lowerDropoutMask);
  addLowering<BiasDropoutAddOp>(patterns, lowerBiasDropoutAdd);
  addLowering<SplitOp>(patterns, lowerSplit);
  patterns.add<PointwiseLowering>(patterns.getContext());
}

} // namespace mt
