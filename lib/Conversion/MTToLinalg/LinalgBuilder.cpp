//===- LinalgBuilder.cpp - building blocks of the mt lowering --------------===//
#include "LinalgBuilder.h"

#include "mt/Analysis/ModelInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

using namespace mlir;

namespace mt {

RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Value scalarOf(OpBuilder &b, Location loc, Value tensor0d) {
  if (auto built = tensor0d.getDefiningOp<tensor::FromElementsOp>())
    return built.getElements().front();
  return tensor::ExtractOp::create(b, loc, tensor0d, ValueRange{});
}

Value clampedIndexOf(OpBuilder &b, Location loc, Value tensor0d, int64_t lo, int64_t hi) {
  Value v = scalarOf(b, loc, tensor0d);
  auto bound = [&](int64_t c) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(c)).getResult();
  };
  v = arith::MaxSIOp::create(b, loc, v, bound(lo));
  v = arith::MinSIOp::create(b, loc, v, bound(hi));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Type computeType(Type element) {
  auto f = dyn_cast<FloatType>(element);
  return f && f.getWidth() < 32 ? Float32Type::get(element.getContext()) : element;
}

Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = to.getIntOrFloatBitWidth();
  if (toWidth > fromWidth)
    return arith::ExtFOp::create(b, loc, to, v);
  if (toWidth == fromWidth)
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return arith::TruncFOp::create(b, loc, to, v);
}

SmallVector<Value> forRange(OpBuilder &b, Location loc, int64_t count, ValueRange carried,
                            LoopBody body) {
  return forRangeTo(b, loc, arith::ConstantIndexOp::create(b, loc, count), carried, body);
}

SmallVector<Value> forRangeTo(OpBuilder &b, Location loc, Value end, ValueRange carried,
                              LoopBody body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, end, one, carried,
                                 [&](OpBuilder &nb, Location nl, Value i, ValueRange args) {
                                   scf::YieldOp::create(nb, nl, body(nb, nl, i, args));
                                 });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> forEachRow(OpBuilder &b, Location loc, int64_t rows, ValueRange carried,
                              LoopBody body) {
  SmallVector<Value> results = forRange(b, loc, rows, carried, body);
  Operation *loop = results.empty() ? nullptr : results.front().getDefiningOp();
  if (loop)
    loop->setAttr(kIndependentIterationsAttrName, b.getUnitAttr());
  return results;
}

Value LinalgBuilder::empty(ArrayRef<int64_t> shape, Type element) {
  return tensor::EmptyOp::create(b, loc, shape, element);
}

Value LinalgBuilder::constant(Type element, double value) {
  if (auto f = dyn_cast<FloatType>(element))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, static_cast<int64_t>(value)));
}

Value LinalgBuilder::index(int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); }

Value LinalgBuilder::filled(ArrayRef<int64_t> shape, Type element, double value) {
  return linalg::FillOp::create(b, loc, constant(element, value), empty(shape, element))
      .getResult(0);
}

SmallVector<utils::IteratorType> LinalgBuilder::parallel(unsigned n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

AffineMap LinalgBuilder::identity(unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, b.getContext());
}

AffineMap LinalgBuilder::suffixMap(unsigned rank, unsigned suffix) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = rank - suffix; d < rank; ++d)
    exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

AffineMap LinalgBuilder::dropLastMap(unsigned rank) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d + 1 < rank; ++d)
    exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

Value LinalgBuilder::generic(ValueRange inputs, ArrayRef<AffineMap> inputMaps, Value init,
                             AffineMap outMap, ArrayRef<utils::IteratorType> iterators,
                             BodyFn body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outMap);
  Type out = tensorOf(init).getElementType();
  auto op = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &outer, Location nl, ValueRange args) {
        // The body is built by a builder of its own, which no rewriter
        // listens to: the widenings nothing reads are erased again below.
        OpBuilder nb(outer.getContext());
        nb.setInsertionPoint(outer.getInsertionBlock(), outer.getInsertionPoint());
        SmallVector<Value> wide;
        for (Value a : args)
          wide.push_back(castFloat(nb, nl, a, computeType(a.getType())));
        Value result = body(nb, nl, wide);
        if (isa<FloatType>(out))
          result = castFloat(nb, nl, result, out);
        linalg::YieldOp::create(nb, nl, result);
        // Widened elements nothing reads (an output the body overwrites).
        for (auto [a, w] : llvm::zip(args, wide))
          if (w != a && w.use_empty())
            w.getDefiningOp()->erase();
      });
  return op.getResult(0);
}

Value LinalgBuilder::map(ValueRange inputs, Value like, BodyFn body) {
  auto type = tensorOf(like);
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(suffixMap(rank, tensorOf(input).getRank()));
  return generic(inputs, maps, empty(type.getShape(), type.getElementType()), identity(rank),
                 parallel(rank), body);
}

Value LinalgBuilder::convertElements(Value input, Type element) {
  auto type = tensorOf(input);
  if (type.getElementType() == element)
    return input;
  unsigned rank = type.getRank();
  // generic widens the element and rounds it to `element`.
  return generic(input, identity(rank), empty(type.getShape(), element), identity(rank),
                 parallel(rank), [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                   return castFloat(nb, nl, args[0], element);
                 });
}

Value LinalgBuilder::reduceLast(Value input, double initValue, BodyFn combine) {
  auto type = tensorOf(input);
  unsigned rank = type.getRank();
  Value init = filled(type.getShape().drop_back(), type.getElementType(), initValue);
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters.back() = utils::IteratorType::reduction;
  return generic(input, identity(rank), init, dropLastMap(rank), iters, combine);
}

namespace {

/// The dims of two row-major shapes of one element count in the fewest
/// adjacent groups of equal products: [4,64,64] -> [4,64,4,16] is {0}{1}{2}
/// -> {0}{1}{2,3}. A reshape is then a collapse of each source group and an
/// expansion of each target group, and a group of one dim on either side
/// needs neither: a view of a strided slice stays a view where a detour
/// through rank 1 copied it (split and merged heads, a kernel each on a GPU).
/// Empty when there is no such split (a zero-size dim, rank 0).
bool reshapeGroups(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                   SmallVector<ReassociationIndices> &fromGroups,
                   SmallVector<ReassociationIndices> &toGroups) {
  if (from.empty() || to.empty() || llvm::is_contained(from, 0) || llvm::is_contained(to, 0))
    return false;
  size_t i = 0, j = 0;
  while (i < from.size() && j < to.size()) {
    ReassociationIndices f{static_cast<int64_t>(i)}, t{static_cast<int64_t>(j)};
    int64_t pf = from[i++], pt = to[j++];
    while (pf != pt) {
      if (pf < pt && i < from.size()) {
        f.push_back(i);
        pf *= from[i++];
      } else if (pt < pf && j < to.size()) {
        t.push_back(j);
        pt *= to[j++];
      } else {
        return false;
      }
    }
    fromGroups.push_back(f);
    toGroups.push_back(t);
  }
  // Trailing dims of size 1 join the last group.
  for (; i < from.size(); ++i) {
    if (from[i] != 1)
      return false;
    fromGroups.back().push_back(i);
  }
  for (; j < to.size(); ++j) {
    if (to[j] != 1)
      return false;
    toGroups.back().push_back(j);
  }
  return true;
}

} // namespace

Value LinalgBuilder::reshape(Value input, ArrayRef<int64_t> shape) {
  auto type = tensorOf(input);
  if (type.getShape() == shape)
    return input;
  Type element = type.getElementType();
  SmallVector<ReassociationIndices> fromGroups, toGroups;
  if (reshapeGroups(type.getShape(), shape, fromGroups, toGroups)) {
    Value grouped = input;
    if (fromGroups.size() != static_cast<size_t>(type.getRank()))
      grouped = tensor::CollapseShapeOp::create(b, loc, input, fromGroups);
    if (toGroups.size() == shape.size())
      return grouped;
    return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, element), grouped,
                                         toGroups);
  }
  // Through rank 1: collapse everything, then expand to the target.
  // Rank 0 <-> rank 1 of one element use an empty reassociation.
  auto allDims = [](size_t rank) {
    SmallVector<ReassociationIndices> groups;
    if (rank == 0)
      return groups;
    groups.emplace_back();
    for (size_t d = 0; d < rank; ++d)
      groups[0].push_back(d);
    return groups;
  };
  Value flat = input;
  auto flatType = RankedTensorType::get({type.getNumElements()}, element);
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, input, allDims(0));
  else if (type.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, input, allDims(type.getRank()));
  if (shape.size() == 1)
    return flat;
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, flat, allDims(0));
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, element), flat,
                                       allDims(shape.size()));
}

Value LinalgBuilder::contract(Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap,
                              ArrayRef<int64_t> outShape, AffineMap outMap,
                              ArrayRef<bool> reduction, Value init, Type resultElement) {
  Type element = tensorOf(lhs).getElementType();
  Type result = resultElement ? resultElement : init ? tensorOf(init).getElementType() : element;
  // 16-bit operands are multiplied and summed in fp32 (a bf16 GEMM with
  // fp32 accumulation), and the sum rounded once at the end.
  Type acc = computeType(element);
  SmallVector<utils::IteratorType> iters;
  for (bool r : reduction)
    iters.push_back(r ? utils::IteratorType::reduction : utils::IteratorType::parallel);
  init = init ? convertElements(init, acc) : filled(outShape, acc, 0.0);
  Value sum = generic({lhs, rhs}, {lhsMap, rhsMap}, init, outMap, iters,
                      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                        // generic hands in the operands widened to `acc`.
                        Value prod = arith::MulFOp::create(nb, nl, a[0], a[1]);
                        return arith::AddFOp::create(nb, nl, a[2], prod);
                      });
  return convertElements(sum, result);
}

namespace {

/// Fewest elements a parallel sum hands each thread, and how many output
/// elements a column sum's first level aims for: a GPU thread takes 16
/// bytes of columns (8 of bf16), so 2^18 elements are 32768 threads.
constexpr int64_t kMinPerThread = 4, kTargetElements = 1 << 18;
/// At most this many elements are summed on one thread at the end.
constexpr int64_t kSequentialSum = 256;

/// How many blocks of rows sumRows splits `rows` into (1: no split). Each
/// thread of the first level sums a block's rows and each of the second
/// sums the blocks, one after another: a GPU waits on memory once per few
/// rows of either, so neither level may be long. The fewest blocks that
/// give kTargetElements, at most about sqrt(rows) of them (the levels
/// balanced); a divisor of `rows`, so no block is ragged, with at least
/// kMinPerThread rows in each. (2026-11-27, H100 run 13: a 4096 x 3072 bias
/// gradient in 16 blocks of 256 rows took 62 us at 12% of the bandwidth.)
int64_t rowBlocks(int64_t rows, int64_t width) {
  if (width * kMinPerThread >= kTargetElements)
    return 1;
  int64_t cap = 1;
  while (cap * cap < rows)
    ++cap;
  int64_t best = 1;
  for (int64_t k = 2; k <= cap && k * kMinPerThread <= rows; ++k) {
    if (rows % k)
      continue;
    best = k;
    if (k * width >= kTargetElements)
      break;
  }
  return best;
}

/// How many partial sums sumAll takes of `n` elements (1: sum them in
/// order): the most that leave each at least 4 x kMinPerThread elements,
/// at most 65536, dividing `n`.
int64_t partialSums(int64_t n) {
  if (n <= kSequentialSum)
    return 1;
  int64_t limit = std::min<int64_t>(65536, n / (4 * kMinPerThread));
  for (int64_t k = limit; k > 1; --k)
    if (n % k == 0)
      return k;
  return 1;
}

} // namespace

Value LinalgBuilder::sumAll(Value input) {
  return sumAll(ValueRange{input}, [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

Value LinalgBuilder::sumAll(ValueRange inputs, BodyFn element) {
  auto type = tensorOf(inputs.front());
  // 16-bit elements are summed in fp32 and the total rounded once.
  Type stored = type.getElementType(), compute = computeType(stored);
  int64_t n = type.getNumElements(), parts = partialSums(n);
  if (parts > 1) {
    // Partial p sums elements p, p + parts, ...: on a GPU neighbouring
    // threads read neighbouring elements.
    SmallVector<std::pair<Value, Read>> rows;
    for (Value input : inputs)
      rows.push_back({reshape(input, {n / parts, parts}), Read::Cell});
    Value partial = sumRows(rows, n / parts, parts, compute, element);
    return convertElements(sumAll(partial), stored);
  }
  unsigned rank = type.getRank();
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::reduction);
  SmallVector<AffineMap> maps(inputs.size(), identity(rank));
  Value total = generic(inputs, maps, filled({}, compute, 0.0),
                        AffineMap::get(rank, 0, {}, b.getContext()), iters,
                        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                          return arith::AddFOp::create(nb, nl, a.back(),
                                                       element(nb, nl, a.drop_back()));
                        });
  return convertElements(total, stored);
}

Value LinalgBuilder::sumRows(ArrayRef<std::pair<Value, Read>> operands, int64_t rows, int64_t width,
                             Type stored, BodyFn element) {
  // Sums of 16-bit elements run in fp32 and are rounded once at the end.
  Type type = computeType(stored);
  int64_t blocks = rowBlocks(rows, width), perBlock = rows / blocks;
  bool split = blocks > 1;
  MLIRContext *ctx = b.getContext();
  // Loops (block, row in block, column) when split, else (row, column).
  unsigned numDims = split ? 3 : 2;
  AffineExpr column = b.getAffineDimExpr(numDims - 1);
  SmallVector<AffineExpr> row{b.getAffineDimExpr(0)};
  if (split)
    row.push_back(b.getAffineDimExpr(1));
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [value, read] : operands) {
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> shape;
    if (read != Read::Column) {
      exprs.append(row);
      if (split)
        shape = {blocks, perBlock};
      else
        shape = {rows};
    }
    if (read != Read::Row) {
      exprs.push_back(column);
      shape.push_back(width);
    }
    inputs.push_back(read == Read::Column ? value : reshape(value, shape));
    maps.push_back(AffineMap::get(numDims, 0, exprs, ctx));
  }
  auto sumBody = [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
    return arith::AddFOp::create(nb, nl, a.back(), element(nb, nl, a.drop_back()));
  };
  using Iter = utils::IteratorType;
  if (!split)
    return convertElements(generic(inputs, maps, filled({width}, type, 0.0),
                                   AffineMap::get(2, 0, {column}, ctx),
                                   {Iter::reduction, Iter::parallel}, sumBody),
                           stored);
  Value partial = generic(inputs, maps, filled({blocks, width}, type, 0.0),
                          AffineMap::get(3, 0, {row[0], column}, ctx),
                          {Iter::parallel, Iter::reduction, Iter::parallel}, sumBody);
  return convertElements(generic(partial, identity(2), filled({width}, type, 0.0), suffixMap(2, 1),
                                 {Iter::reduction, Iter::parallel},
                                 [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                                   return arith::AddFOp::create(nb, nl, a[1], a[0]);
                                 }),
                         stored);
}

Value LinalgBuilder::loopIndexI64(OpBuilder &nb, Location nl, unsigned dim) {
  Value i = linalg::IndexOp::create(nb, nl, dim);
  return arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
}

} // namespace mt
