//===- DropoutKeep.cpp - the keep decision of every dropout kernel --------===//
#include "DropoutKeep.h"

#include "mt/Analysis/ModelInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;

namespace mt {

Value layerOffsetOf(Operation *op) {
  auto fn = op->getParentOfType<func::FuncOp>();
  if (!fn)
    return {};
  for (BlockArgument arg : fn.getArguments())
    if (fn.getArgAttr(arg.getArgNumber(), kLayerOffsetAttrName))
      return arg;
  return {};
}

Value splitmix(OpBuilder &b, Location l, Value x) {
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  auto mix = [&](Value z, unsigned shift, uint64_t mul) {
    Value shifted = arith::ShRUIOp::create(b, l, z, c(shift));
    return arith::MulIOp::create(b, l, arith::XOrIOp::create(b, l, z, shifted), c(mul));
  };
  Value z = arith::AddIOp::create(b, l, x, c(0x9E3779B97F4A7C15ull));
  z = mix(z, 30, 0xBF58476D1CE4E5B9ull);
  z = mix(z, 27, 0x94D049BB133111EBull);
  return arith::XOrIOp::create(b, l, z, arith::ShRUIOp::create(b, l, z, c(31)));
}

DropoutKeep::DropoutKeep(const DropoutKey &k, ArrayRef<int64_t> shape, LinalgBuilder &lb)
    : rate(k.rate), lb(lb), rank(shape.size()) {
  OpBuilder &b = lb.builder();
  Location loc = lb.location();
  // key = splitmix(seed ^ splitmix(stream << 32 | layer slot)); the layer
  // slot is 0 outside layers and layer + 1 inside.
  int64_t slot = k.layer ? *k.layer + 1 : 0;
  Value seed = k.seed ? tensor::ExtractOp::create(b, loc, k.seed, ValueRange{}).getResult()
                      : lb.constant(b.getI64Type(), 0);
  Value site = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr((k.stream << 32) | slot));
  // A shared stage program's layers are relative to its caller's first
  // (the slot stays below 2^32, so adding is or-ing).
  // (An outlined layer's offset is a scalar; a shared program's, a tensor.)
  if (k.layerOffset) {
    Value offset = k.layerOffset;
    if (isa<TensorType>(offset.getType()))
      offset = tensor::ExtractOp::create(b, loc, offset, ValueRange{});
    site = arith::AddIOp::create(b, loc, site, offset);
  }
  key = splitmix(b, loc, arith::XOrIOp::create(b, loc, seed, splitmix(b, loc, site)));
  // A shard's piece along shard_dim starts at shard * (its size there).
  SmallVector<int64_t> global(shape);
  if (k.shard) {
    shardDim = k.shardDim;
    global[shardDim] *= k.shardParts;
    Value i = scalarOf(b, loc, k.shard);
    shardOffset = arith::MulIOp::create(
        b, loc, i, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(shape[shardDim])));
  }
  strides.assign(rank, 1);
  for (int d = static_cast<int>(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * global[d + 1];
}

Value DropoutKeep::keepAt(OpBuilder &nb, Location l, ValueRange indices) const {
  auto i64 = [&](int64_t v) { return arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v)); };
  Value linear = i64(0);
  for (unsigned d = 0; d < rank; ++d) {
    Value position = indices[d];
    if (position.getType().isIndex())
      position = arith::IndexCastOp::create(nb, l, nb.getI64Type(), position);
    if (static_cast<int64_t>(d) == shardDim)
      position = arith::AddIOp::create(nb, l, position, shardOffset);
    linear = arith::AddIOp::create(nb, l, linear,
                                   arith::MulIOp::create(nb, l, position, i64(strides[d])));
  }
  Value h = splitmix(nb, l, arith::AddIOp::create(nb, l, key, linear));
  // u = top 24 bits / 2^24, uniform in [0, 1); keep when u >= rate.
  Value top = arith::ShRUIOp::create(nb, l, h, i64(40));
  int64_t threshold = static_cast<int64_t>(std::ceil(rate * (1 << 24)));
  return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, top, i64(threshold));
}

Value DropoutKeep::keep(OpBuilder &nb, Location l) const {
  SmallVector<Value> indices;
  for (unsigned d = 0; d < rank; ++d)
    indices.push_back(lb.loopIndexI64(nb, l, d));
  return keepAt(nb, l, indices);
}

} // namespace mt
