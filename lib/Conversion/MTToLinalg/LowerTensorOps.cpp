//===- LowerTensorOps.cpp - zeros, reshape, concat, sums, layer slices -----===//
#include "Lowerings.h"

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

/// A sum over leading dimensions is a column sum of [rows, width].
Lowered lowerSumTo(SumToOp op, LinalgBuilder &lb) {
  auto in = tensorOf(op.getInput()), out = tensorOf(op.getResult());
  if (out.getRank() == 0)
    return SmallVector<Value>{lb.sumAll(op.getInput())};
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
