//===- LowerTensorOps.cpp - zeros, reshape, concat, sums, layer slices -----===//
#include "Lowerings.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace mt {
namespace {

Value insertAt(LinalgBuilder &lb, Value source, Value dest, ArrayRef<int64_t> offsets,
               ArrayRef<int64_t> sizes) {
  OpBuilder &b = lb.builder();
  SmallVector<int64_t> strides(offsets.size(), 1);
  return tensor::InsertSliceOp::create(b, lb.location(), source, dest, ValueRange{}, ValueRange{},
                                       ValueRange{}, b.getDenseI64ArrayAttr(offsets),
                                       b.getDenseI64ArrayAttr(sizes),
                                       b.getDenseI64ArrayAttr(strides));
}

Lowered lowerConcat(ConcatOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  int64_t dim = op.getDimAttr().getInt(), offset = 0;
  Value acc = lb.empty(out.getShape(), out.getElementType());
  for (Value v : op.getInputs()) {
    auto t = tensorOf(v);
    SmallVector<int64_t> offsets(t.getRank(), 0);
    offsets[dim] = offset;
    offset += t.getDimSize(dim);
    acc = insertAt(lb, v, acc, offsets, t.getShape());
  }
  return SmallVector<Value>{acc};
}

/// The lowered elementwise op that only `input`'s sum reads (a gradient's
/// square for its norm), when the sum can apply its body instead: same-shape
/// 32/64-bit float operands (the sum widens 16-bit ones before its body),
/// no positions read. Left dead; mt-lower-to-linalg erases it.
linalg::GenericOp summedProducer(Value input) {
  auto producer = input.getDefiningOp<linalg::GenericOp>();
  if (!producer || !input.hasOneUse() || producer.getNumDpsInits() != 1 ||
      producer.getNumReductionLoops() != 0 || producer.hasIndexSemantics() ||
      !producer.getRegionOutputArgs()[0].use_empty())
    return {};
  auto wide = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && isa<FloatType>(t.getElementType()) && t.getElementTypeBitWidth() >= 32;
  };
  auto type = tensorOf(input);
  for (OpOperand *operand : producer.getDpsInputOperands())
    if (!wide(operand->get()) || tensorOf(operand->get()).getShape() != type.getShape() ||
        !producer.getMatchingIndexingMap(operand).isIdentity())
      return {};
  return wide(input) ? producer : linalg::GenericOp{};
}

/// A sum of everything; an elementwise producer's body is applied inside
/// it, so the producer's result is never stored.
Value sumEverything(Value input, LinalgBuilder &lb) {
  linalg::GenericOp producer = summedProducer(input);
  if (!producer)
    return lb.sumAll(input);
  // Each distinct operand is read once (a square reads x twice).
  SmallVector<Value> inputs;
  SmallVector<unsigned> position;
  for (OpOperand *operand : producer.getDpsInputOperands()) {
    auto *it = llvm::find(inputs, operand->get());
    position.push_back(it - inputs.begin());
    if (it == inputs.end())
      inputs.push_back(operand->get());
  }
  Block *body = producer.getBody();
  return lb.sumAll(inputs, [&](OpBuilder &nb, Location, ValueRange a) -> Value {
    IRMapping values;
    for (auto [i, p] : llvm::enumerate(position))
      values.map(body->getArgument(i), a[p]);
    for (Operation &inner : body->without_terminator())
      nb.clone(inner, values);
    return values.lookup(body->getTerminator()->getOperand(0));
  });
}

/// A sum over leading dimensions is a column sum of [rows, width].
Lowered lowerSumTo(SumToOp op, LinalgBuilder &lb) {
  auto in = tensorOf(op.getInput()), out = tensorOf(op.getResult());
  if (out.getRank() == 0)
    return SmallVector<Value>{sumEverything(op.getInput(), lb)};
  int64_t width = out.getNumElements(), rows = in.getNumElements() / width;
  Value sum =
      lb.sumRows({{op.getInput(), LinalgBuilder::Read::Cell}}, rows, width, out.getElementType(),
                 [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  return SmallVector<Value>{lb.reshape(sum, out.getShape())};
}

Lowered lowerSliceLayer(SliceLayerOp op, LinalgBuilder &lb) {
  auto in = tensorOf(op.getInput());
  OpBuilder &b = lb.builder();
  SmallVector<int64_t> offsets(in.getRank(), 0), sizes(in.getShape()), strides(in.getRank(), 1);
  offsets[0] = op.getLayerAttr().getInt();
  sizes[0] = 1;
  Value slice = tensor::ExtractSliceOp::create(
      b, lb.location(), tensorOf(op.getResult()), op.getInput(), ValueRange{}, ValueRange{},
      ValueRange{}, b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
      b.getDenseI64ArrayAttr(strides));
  return SmallVector<Value>{slice};
}

Lowered lowerStackLayers(StackLayersOp op, LinalgBuilder &lb) {
  auto out = tensorOf(op.getResult());
  Value acc = lb.empty(out.getShape(), out.getElementType());
  SmallVector<int64_t> sizes(out.getShape());
  sizes[0] = 1;
  for (auto [i, v] : llvm::enumerate(op.getInputs())) {
    SmallVector<int64_t> offsets(out.getRank(), 0);
    offsets[0] = static_cast<int64_t>(i);
    acc = insertAt(lb, v, acc, offsets, sizes);
  }
  return SmallVector<Value>{acc};
}

} // namespace

Value insertSlice(LinalgBuilder &lb, Value source, Value dest, ArrayRef<int64_t> offsets,
                  ArrayRef<int64_t> sizes) {
  return insertAt(lb, source, dest, offsets, sizes);
}

void populateTensorLoweringPatterns(RewritePatternSet &patterns) {
  addLowering<ZerosOp>(patterns, [](ZerosOp z, LinalgBuilder &lb) -> Lowered {
    auto t = tensorOf(z.getResult());
    return SmallVector<Value>{lb.filled(t.getShape(), t.getElementType(), 0.0)};
  });
  addLowering<ReshapeOp>(patterns, [](ReshapeOp r, LinalgBuilder &lb) -> Lowered {
    return SmallVector<Value>{lb.reshape(r.getInput(), tensorOf(r.getResult()).getShape())};
  });
  addLowering<ConvertOp>(patterns, [](ConvertOp c, LinalgBuilder &lb) -> Lowered {
    return SmallVector<Value>{
        lb.convertElements(c.getInput(), tensorOf(c.getResult()).getElementType())};
  });
  addLowering<ConcatOp>(patterns, lowerConcat);
  addLowering<SumToOp>(patterns, lowerSumTo);
  addLowering<SliceLayerOp>(patterns, lowerSliceLayer);
  addLowering<StackLayersOp>(patterns, lowerStackLayers);
  addLowering<InsertLayerOp>(patterns, [](InsertLayerOp s, LinalgBuilder &lb) -> Lowered {
    auto into = tensorOf(s.getInto());
    SmallVector<int64_t> offsets(into.getRank(), 0), sizes(into.getShape());
    offsets[0] = s.getLayerAttr().getInt();
    sizes[0] = 1;
    return SmallVector<Value>{insertAt(lb, s.getValue(), s.getInto(), offsets, sizes)};
  });
  addLowering<ShardOp>(patterns, [](ShardOp s, LinalgBuilder &) -> Lowered {
    return SmallVector<Value>{s.getInput()};
  });
}

} // namespace mt
