//===- LowerParallelOps.cpp - tensor-parallel ops and collectives ----------===//
//
// Collectives and mesh coordinates become calls into the runtime
// (mt/Runtime/Abi.h: lib/Target/CPU/RuntimeHooks.c forwards them to the
// hooks mt-run installs): tensors are passed by address, as 64-bit
// integers, like the BLAS calls, and element types, reductions and mesh
// axes as the ABI's codes.
//
//===----------------------------------------------------------------------===//
#include "Lowerings.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Runtime/Abi.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace mt {
namespace {

using Iter = utils::IteratorType;

Value cst(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
}
Value i64(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
}

FailureOr<int64_t> axisMask(Operation *op, ArrayRef<StringRef> axes) {
  int64_t mask = 0;
  for (StringRef a : axes) {
    int64_t bit = abi::axisBit(std::string_view(a.data(), a.size()));
    if (!bit)
      return op->emitError() << "mt-lower-to-linalg: mesh axis '" << a
                             << "' is not one the runtime knows (pp, dp, tp)";
    mask |= bit;
  }
  return mask;
}

FailureOr<int64_t> axisMask(Operation *op, ArrayAttr axes) {
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return axisMask(op, names);
}

/// The runtime entry `name` of signature `Fn` (mt/Runtime/Abi.h: i64
/// arguments, an i64 or no result), declared once per module.
template <typename Fn> func::FuncOp declareRuntime(Operation *from, StringRef name) {
  static_assert(abi::Arity<Fn>::allI64, "compiled code passes i64 arguments only");
  auto module = from->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  Type i64Type = b.getI64Type();
  auto type = b.getFunctionType(SmallVector<Type>(abi::arity<Fn>, i64Type),
                                abi::Arity<Fn>::returnsI64 ? TypeRange{i64Type} : TypeRange{});
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// The collective's label (mt-number-collectives).
FailureOr<int64_t> labelOf(Operation *op) {
  if (auto label = op->getAttrOfType<IntegerAttr>(kCollectiveAttrName))
    return label.getInt();
  return op->emitError() << "mt-lower-to-linalg: the collective has no `" << kCollectiveAttrName
                         << "` label; run mt-number-collectives first";
}

/// The ABI's code of a collective's element type.
FailureOr<int64_t> dtypeCode(Operation *op, Type t) {
  if (t.isF32())
    return int64_t{MT_ABI_DTYPE_F32};
  if (t.isF64())
    return int64_t{MT_ABI_DTYPE_F64};
  if (t.isBF16())
    return int64_t{MT_ABI_DTYPE_BF16};
  if (t.isF16())
    return int64_t{MT_ABI_DTYPE_F16};
  return op->emitError() << "mt-lower-to-linalg: the runtime's collectives move f32, f64, bf16 "
                            "or f16 elements, not "
                         << t;
}

/// The address of a tensor's buffer as i64. `writable`: a fresh buffer the
/// call fills (returned as `buffer`), else a view of the value.
Value addressOf(LinalgBuilder &lb, Value tensor, Value &buffer) {
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  auto type = tensorOf(tensor);
  buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value tensorFrom(LinalgBuilder &lb, Value buffer, RankedTensorType type) {
  return bufferization::ToTensorOp::create(lb.builder(), lb.location(), type, buffer,
                                           /*restrict=*/true, /*writable=*/true);
}

/// A copy of `x` in a buffer of its own (collectives work in place).
Value freshCopy(LinalgBuilder &lb, Value x) {
  auto type = tensorOf(x);
  return lb.map(x, lb.empty(type.getShape(), type.getElementType()),
                [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// [outer, inner] view sizes around dimension `dim`: outer = the dimensions
/// before it, inner = `dim` and those after it.
std::pair<int64_t, int64_t> outerInner(RankedTensorType type, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= type.getDimSize(d);
  return {outer, type.getNumElements() / outer};
}

/// Whether an mt.collective_wait completes the collective that made `result`.
bool waitedFor(Value result) {
  return llvm::any_of(result.getUsers(), [](Operation *u) { return isa<CollectiveWaitOp>(u); });
}

Lowered lowerAllReduce(AllReduceOp op, LinalgBuilder &lb) {
  auto mask = axisMask(op, op.getAxes());
  auto type = tensorOf(op.getInput());
  auto dtype = dtypeCode(op, type.getElementType());
  auto label = labelOf(op);
  if (failed(mask) || failed(dtype) || failed(label))
    return failure();
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value buffer;
  Value data = addressOf(lb, freshCopy(lb, op.getInput()), buffer);
  int64_t reduction =
      op.getReduction() == ReductionKind::max ? MT_ABI_REDUCE_MAX : MT_ABI_REDUCE_SUM;
  // Waited for later (mt.collective_wait): the call only starts it, and the
  // copy it reduces in place stays the result's buffer until the wait.
  auto fn = declareRuntime<MtAllReduceFn>(op, waitedFor(op.getResult()) ? MT_RT_ALL_REDUCE_START
                                                                        : MT_RT_ALL_REDUCE);
  func::CallOp::create(b, loc, fn,
                       ValueRange{data, i64(b, loc, type.getNumElements()), i64(b, loc, *dtype),
                                  i64(b, loc, reduction), i64(b, loc, *mask), i64(b, loc, *label)});
  return SmallVector<Value>{tensorFrom(lb, buffer, type)};
}

/// all_gather (gather = true) and reduce_scatter: the runtime moves
/// [outer, inner] pieces; the local piece's `inner` covers `dim` onwards.
Lowered lowerResize(Operation *op, Value input, Value result, ArrayAttr axes, int64_t dim,
                    bool gather, LinalgBuilder &lb) {
  auto mask = axisMask(op, axes);
  auto in = tensorOf(input), out = tensorOf(result);
  auto dtype = dtypeCode(op, in.getElementType());
  auto label = labelOf(op);
  if (failed(mask) || failed(dtype) || failed(label))
    return failure();
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value inBuffer, outBuffer;
  Value inAddress = addressOf(lb, freshCopy(lb, input), inBuffer);
  Value outAddress = addressOf(lb, lb.empty(out.getShape(), out.getElementType()), outBuffer);
  auto [outer, inner] = outerInner(gather ? in : out, dim);
  // Waited for later (mt.collective_wait): the call only starts it.
  bool waited = waitedFor(result);
  auto fn = declareRuntime<MtResizeFn>(
      op, gather ? (waited ? MT_RT_ALL_GATHER_START : MT_RT_ALL_GATHER)
                 : (waited ? MT_RT_REDUCE_SCATTER_START : MT_RT_REDUCE_SCATTER));
  func::CallOp::create(b, loc, fn,
                       ValueRange{inAddress, outAddress, i64(b, loc, outer), i64(b, loc, inner),
                                  i64(b, loc, *dtype), i64(b, loc, *mask), i64(b, loc, *label)});
  return SmallVector<Value>{tensorFrom(lb, outBuffer, out)};
}

/// The runtime returns once the collective that fills the buffer is done.
Lowered lowerCollectiveWait(CollectiveWaitOp op, LinalgBuilder &lb) {
  Value buffer;
  Value address = addressOf(lb, op.getPending(), buffer);
  auto fn = declareRuntime<MtCollectiveWaitFn>(op, MT_RT_COLLECTIVE_WAIT);
  func::CallOp::create(lb.builder(), lb.location(), fn, ValueRange{address});
  return SmallVector<Value>{tensorFrom(lb, buffer, tensorOf(op.getResult()))};
}

Lowered lowerAxisIndex(AxisIndexOp op, LinalgBuilder &lb) {
  auto mask = axisMask(op, {op.getAxis()});
  if (failed(mask))
    return failure();
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  auto fn = declareRuntime<MtAxisIndexFn>(op, MT_RT_AXIS_INDEX);
  Value index = func::CallOp::create(b, loc, fn, ValueRange{i64(b, loc, *mask)}).getResult(0);
  return SmallVector<Value>{
      tensor::FromElementsOp::create(b, loc, tensorOf(op.getResult()), ValueRange{index})};
}

/// The index-typed offset `index * size` of a shard.
Value shardOffset(LinalgBuilder &lb, Value index, int64_t size) {
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  Value i = scalarOf(b, loc, index);
  i = arith::MulIOp::create(b, loc, i, i64(b, loc, size));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
}

/// (offsets, sizes, strides) of piece `index` of `whole` along `dim`.
void pieceOf(LinalgBuilder &lb, RankedTensorType piece, Value index, int64_t dim,
             SmallVector<OpFoldResult> &offsets, SmallVector<OpFoldResult> &sizes,
             SmallVector<OpFoldResult> &strides) {
  OpBuilder &b = lb.builder();
  for (int64_t d = 0; d < piece.getRank(); ++d) {
    offsets.push_back(d == dim ? OpFoldResult(shardOffset(lb, index, piece.getDimSize(dim)))
                               : OpFoldResult(b.getIndexAttr(0)));
    sizes.push_back(b.getIndexAttr(piece.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
  }
}

Lowered lowerShardSlice(ShardSliceOp op, LinalgBuilder &lb) {
  auto piece = tensorOf(op.getResult());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  pieceOf(lb, piece, op.getIndex(), op.getDimAttr().getInt(), offsets, sizes, strides);
  return SmallVector<Value>{tensor::ExtractSliceOp::create(lb.builder(), lb.location(), piece,
                                                           op.getInput(), offsets, sizes, strides)};
}

Lowered lowerShardSliceGrad(ShardSliceGradOp op, LinalgBuilder &lb) {
  auto piece = tensorOf(op.getGrad()), whole = tensorOf(op.getResult());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  pieceOf(lb, piece, op.getIndex(), op.getDimAttr().getInt(), offsets, sizes, strides);
  Value zeros = lb.filled(whole.getShape(), whole.getElementType(), 0.0);
  return SmallVector<Value>{tensor::InsertSliceOp::create(lb.builder(), lb.location(), op.getGrad(),
                                                          zeros, offsets, sizes, strides)};
}

/// Logits [R, V] of shard `index`: whether local class `column` is a real
/// class.
Value validClassAt(OpBuilder &b, Location l, Value column, Value offset, int64_t classes) {
  Value c = arith::AddIOp::create(b, l, column, offset);
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, c,
                               arith::ConstantIndexOp::create(b, l, classes));
}

/// The same inside a linalg.generic over [R, V].
Value validClass(OpBuilder &b, Location l, Value offset, int64_t classes) {
  return validClassAt(b, l, linalg::IndexOp::create(b, l, 1), offset, classes);
}

/// The label of a row as a local class index of the shard, and whether the
/// shard holds it.
std::pair<Value, Value> localLabel(OpBuilder &b, Location l, Value label, Value offset, int64_t v) {
  Value id = arith::IndexCastOp::create(b, l, b.getIndexType(), label);
  Value local = arith::SubIOp::create(b, l, id, offset);
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value inside = arith::AndIOp::create(
      b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, local, zero),
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, local,
                            arith::ConstantIndexOp::create(b, l, v)));
  Value clamped = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, local, zero),
                                         arith::ConstantIndexOp::create(b, l, v - 1));
  return {clamped, inside};
}

/// The shard's row maxima over its real classes: one loop nest (a row kernel).
Lowered lowerVocabMax(VocabParallelMaxOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getLogits());
  int64_t v = type.getShape().back(), rows = type.getNumElements() / v;
  // 16-bit logits are compared in fp32 and the maxima stored rounded.
  Type stored = type.getElementType(), t = computeType(stored);
  Value logits = lb.reshape(op.getLogits(), {rows, v});
  Value offset = shardOffset(lb, op.getShard(), v);
  int64_t classes = op.getNumClassesAttr().getInt();
  Value max = forEachRow(
      lb.builder(), lb.location(), rows, lb.empty({rows}, stored),
      [&](OpBuilder &rb, Location rl, Value r, ValueRange outs) {
        Value m = forRange(
            rb, rl, v, cst(rb, rl, t, negInf()),
            [&](OpBuilder &b, Location l, Value j, ValueRange acc) {
              Value x =
                  castFloat(b, l, tensor::ExtractOp::create(b, l, logits, ValueRange{r, j}), t);
              Value z = arith::SelectOp::create(b, l, validClassAt(b, l, j, offset, classes), x,
                                                cst(b, l, t, negInf()));
              return SmallVector<Value>{arith::MaximumFOp::create(b, l, z, acc[0])};
            })[0];
        return SmallVector<Value>{
            tensor::InsertOp::create(rb, rl, castFloat(rb, rl, m, stored), outs[0], ValueRange{r})};
      })[0];
  return SmallVector<Value>{lb.reshape(max, tensorOf(op.getResult()).getShape())};
}

/// The shard's sums of exp(x - max) and its label logits: one loop nest.
Lowered lowerVocabStats(VocabParallelStatsOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getLogits());
  int64_t v = type.getShape().back(), rows = type.getNumElements() / v;
  // Sums of 16-bit logits run in fp32; the statistics are stored rounded.
  Type stored = type.getElementType(), t = computeType(stored);
  Value logits = lb.reshape(op.getLogits(), {rows, v});
  Value labels = lb.reshape(op.getLabels(), {rows});
  Value max = lb.reshape(op.getMax(), {rows});
  Value offset = shardOffset(lb, op.getShard(), v);
  int64_t classes = op.getNumClassesAttr().getInt();
  auto read = [&](OpBuilder &b, Location l, Value tensor, ValueRange at) {
    return castFloat(b, l, tensor::ExtractOp::create(b, l, tensor, at), t);
  };
  SmallVector<Value> stats = forEachRow(
      lb.builder(), lb.location(), rows, {lb.empty({rows}, stored), lb.empty({rows}, stored)},
      [&](OpBuilder &rb, Location rl, Value r, ValueRange outs) {
        Value m = read(rb, rl, max, ValueRange{r});
        Value sum = forRange(
            rb, rl, v, cst(rb, rl, t, 0.0), [&](OpBuilder &b, Location l, Value j, ValueRange acc) {
              Value x = read(b, l, logits, ValueRange{r, j});
              Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
              e = arith::SelectOp::create(b, l, validClassAt(b, l, j, offset, classes), e,
                                          cst(b, l, t, 0.0));
              return SmallVector<Value>{arith::AddFOp::create(b, l, acc[0], e)};
            })[0];
        Value label = tensor::ExtractOp::create(rb, rl, labels, ValueRange{r});
        auto [local, inside] = localLabel(rb, rl, label, offset, v);
        Value picked = read(rb, rl, logits, ValueRange{r, local});
        picked = arith::SelectOp::create(rb, rl, inside, picked, cst(rb, rl, t, 0.0));
        auto put = [&](Value x, Value into) {
          return tensor::InsertOp::create(rb, rl, castFloat(rb, rl, x, stored), into, ValueRange{r})
              .getResult();
        };
        return SmallVector<Value>{put(sum, outs[0]), put(picked, outs[1])};
      });
  auto rowShape = tensorOf(op.getSumExp()).getShape();
  return SmallVector<Value>{lb.reshape(stats[0], rowShape), lb.reshape(stats[1], rowShape)};
}

Lowered lowerVocabStatsGrad(VocabParallelStatsGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getLogits());
  int64_t v = type.getShape().back(), rows = type.getNumElements() / v;
  Type stored = type.getElementType(), t = computeType(stored);
  Value logits = lb.reshape(op.getLogits(), {rows, v});
  Value labels = lb.reshape(op.getLabels(), {rows});
  Value max = lb.reshape(op.getMax(), {rows});
  Value dSumExp = lb.reshape(op.getGradSumExp(), {rows});
  Value dLabel = lb.reshape(op.getGradLabelLogit(), {rows});
  Value offset = shardOffset(lb, op.getShard(), v);
  int64_t classes = op.getNumClassesAttr().getInt();
  Value dx = lb.generic(
      {logits, max, dSumExp, dLabel, labels},
      {lb.identity(2), lb.dropLastMap(2), lb.dropLastMap(2), lb.dropLastMap(2), lb.dropLastMap(2)},
      lb.empty({rows, v}, stored), lb.identity(2), lb.parallel(2),
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]));
        Value g = arith::MulFOp::create(b, l, a[2], e);
        g = arith::SelectOp::create(b, l, validClass(b, l, offset, classes), g, cst(b, l, t, 0.0));
        Value c = linalg::IndexOp::create(b, l, 1);
        auto [local, inside] = localLabel(b, l, a[4], offset, v);
        Value hit = arith::AndIOp::create(
            b, l, inside, arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, c, local));
        return arith::SelectOp::create(b, l, hit, arith::AddFOp::create(b, l, g, a[3]), g);
      });
  return SmallVector<Value>{lb.reshape(dx, type.getShape())};
}

/// mask [R] (ones without one) in the statistics' element type.
Value rowMask(LinalgBuilder &lb, Value mask, int64_t rows, Type t) {
  if (!mask)
    return lb.filled({rows}, t, 1.0);
  mask = lb.reshape(mask, {rows});
  if (tensorOf(mask).getElementType() == t)
    return mask;
  return lb.map(mask, lb.empty({rows}, t), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
    return castFloat(b, l, a[0], t);
  });
}

/// mt.accuracy_from_stats: mean over unmasked rows of [label_logit >= max].
Lowered lowerAccuracyFromStats(AccuracyFromStatsOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getLabelLogit());
  int64_t rows = type.getNumElements();
  Type t = computeType(type.getElementType());
  MLIRContext *ctx = lb.builder().getContext();
  Value label = lb.reshape(op.getLabelLogit(), {rows}), max = lb.reshape(op.getMax(), {rows});
  Value mask = rowMask(lb, op.getLossMask(), rows, t);
  Value perRow = lb.generic(
      {label, max, mask}, {lb.identity(1), lb.identity(1), lb.identity(1)}, lb.empty({rows}, t),
      lb.identity(1), lb.parallel(1), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value hit = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, castFloat(b, l, a[0], t),
                                          castFloat(b, l, a[1], t));
        Value one = arith::SelectOp::create(b, l, hit, cst(b, l, t, 1.0), cst(b, l, t, 0.0));
        return arith::MulFOp::create(b, l, one, a[2]);
      });
  Value total = lb.sumAll(perRow), count = lb.sumAll(mask);
  Type resultType = tensorOf(op.getResult()).getElementType();
  AffineMap scalar = AffineMap::get(0, 0, {}, ctx);
  return SmallVector<Value>{
      lb.generic({total, count}, {scalar, scalar}, lb.empty({}, resultType), scalar, {},
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1],
                                                       cst(b, l, t, 0.0));
                   Value denom = arith::SelectOp::create(b, l, empty, cst(b, l, t, 1.0), a[1]);
                   return castFloat(b, l, arith::DivFOp::create(b, l, a[0], denom), resultType);
                 })};
}

Lowered lowerFromStats(CrossEntropyFromStatsOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getSumExp());
  int64_t rows = type.getNumElements();
  // The loss of 16-bit statistics is computed in fp32.
  Type t = computeType(type.getElementType());
  MLIRContext *ctx = lb.builder().getContext();
  Value sumExp = lb.reshape(op.getSumExp(), {rows}), label = lb.reshape(op.getLabelLogit(), {rows});
  Value max = lb.reshape(op.getMax(), {rows});
  Value mask = rowMask(lb, op.getLossMask(), rows, t);
  Value perRow = lb.generic(
      {sumExp, label, max, mask}, {lb.identity(1), lb.identity(1), lb.identity(1), lb.identity(1)},
      lb.empty({rows}, t), lb.identity(1), lb.parallel(1),
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        // Same order of operations as mt.cross_entropy: lse = max + log(sum).
        Value lse = arith::AddFOp::create(b, l, a[2], math::LogOp::create(b, l, a[0]));
        return arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, lse, a[1]), a[3]);
      });
  Value total = lb.sumAll(perRow), count = lb.sumAll(mask);
  Type lossType = tensorOf(op.getResult()).getElementType();
  AffineMap scalar = AffineMap::get(0, 0, {}, ctx);
  Value loss = lb.generic({total, count}, {scalar, scalar}, lb.empty({}, lossType), scalar, {},
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                                                a[1], cst(b, l, t, 0.0));
                            Value denom =
                                arith::SelectOp::create(b, l, empty, cst(b, l, t, 1.0), a[1]);
                            Value mean = arith::DivFOp::create(b, l, a[0], denom);
                            return castFloat(b, l, mean, lossType);
                          });
  return SmallVector<Value>{loss};
}

Lowered lowerFromStatsGrad(CrossEntropyFromStatsGradOp op, LinalgBuilder &lb) {
  auto type = tensorOf(op.getSumExp());
  int64_t rows = type.getNumElements();
  Type stored = type.getElementType(), t = computeType(stored);
  MLIRContext *ctx = lb.builder().getContext();
  Value sumExp = lb.reshape(op.getSumExp(), {rows});
  Value mask = rowMask(lb, op.getLossMask(), rows, t);
  Value count = lb.sumAll(mask);
  AffineMap scalar = AffineMap::get(1, 0, {}, ctx);
  // w = grad * mask / count per row.
  Value w = lb.generic(
      {mask, count, op.getGrad()}, {lb.identity(1), scalar, scalar}, lb.empty({rows}, t),
      lb.identity(1), lb.parallel(1), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value empty =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1], cst(b, l, t, 0.0));
        Value denom = arith::SelectOp::create(b, l, empty, cst(b, l, t, 1.0), a[1]);
        Value g = castFloat(b, l, a[2], t);
        return arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, a[0], g), denom);
      });
  Value dSumExp = lb.map({w, sumExp}, w, [](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::DivFOp::create(b, l, a[0], a[1]);
  });
  Value dLabel = lb.map(w, w, [](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::NegFOp::create(b, l, a[0]);
  });
  return SmallVector<Value>{lb.reshape(lb.convertElements(dSumExp, stored), type.getShape()),
                            lb.reshape(lb.convertElements(dLabel, stored), type.getShape())};
}

} // namespace

void populateParallelLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<VaryOp>(patterns, [](VaryOp v, LinalgBuilder &) -> Lowered {
    return SmallVector<Value>{v.getInput()};
  });
  addLowering<AxisIndexOp>(patterns, lowerAxisIndex);
  // A call the runtime answers by starting the slice's all-reduce; it sits
  // where the op was, after the accumulator's last write.
  addLowering<GradientReadyOp>(patterns, [](GradientReadyOp r, LinalgBuilder &lb) -> Lowered {
    auto fn = declareRuntime<MtGradientReadyFn>(r, MT_RT_GRADIENT_READY);
    func::CallOp::create(lb.builder(), lb.location(), fn,
                         ValueRange{i64(lb.builder(), lb.location(), r.getIndex())});
    return SmallVector<Value>{};
  });
  addLowering<AllReduceOp>(patterns, lowerAllReduce);
  addLowering<AllGatherOp>(patterns, [](AllGatherOp g, LinalgBuilder &lb) {
    return lowerResize(g, g.getInput(), g.getResult(), g.getAxes(), g.getDimAttr().getInt(),
                       /*gather=*/true, lb);
  });
  addLowering<ReduceScatterOp>(patterns, [](ReduceScatterOp r, LinalgBuilder &lb) -> Lowered {
    if (r.getReduction() != ReductionKind::sum)
      return r.emitError("mt-lower-to-linalg: only sum reduce-scatter is lowered");
    return lowerResize(r, r.getInput(), r.getResult(), r.getAxes(), r.getDimAttr().getInt(),
                       /*gather=*/false, lb);
  });
  addLowering<CollectiveWaitOp>(patterns, lowerCollectiveWait);
  addLowering<ShardSliceOp>(patterns, lowerShardSlice);
  addLowering<ShardSliceGradOp>(patterns, lowerShardSliceGrad);
  addLowering<VocabParallelMaxOp>(patterns, lowerVocabMax);
  addLowering<VocabParallelStatsOp>(patterns, lowerVocabStats);
  addLowering<VocabParallelStatsGradOp>(patterns, lowerVocabStatsGrad);
  addLowering<CrossEntropyFromStatsOp>(patterns, lowerFromStats);
  addLowering<AccuracyFromStatsOp>(patterns, lowerAccuracyFromStats);
  addLowering<CrossEntropyFromStatsGradOp>(patterns, lowerFromStatsGrad);
}

} // namespace mt
