//===- MTShapeInference.cpp - result types from operand types --------------===//
//
// One rule per op that does not simply return its first operand's type.
// Verifiers compare the declared result against these rules, so shape
// specialization and verification cannot disagree. Every rule assumes the
// operand constraints its verifier checks first (ranks, divisibility).
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

static constexpr int64_t kDyn = ShapedType::kDynamic;

static Type tensorOf(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// a * b, or dynamic when either is.
static int64_t mulDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDyn : a * b;
}

/// a / b, or dynamic when a is.
static int64_t divDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || b <= 0 ? kDyn : a / b;
}

SmallVector<Type> EmbeddingOp::inferResultTypes() {
  auto table = tensorType(getTable());
  SmallVector<int64_t> shape(tensorType(getIds()).getShape());
  shape.push_back(table.getDimSize(1));
  return {tensorOf(shape, table.getElementType())};
}

SmallVector<Type> PositionEmbeddingOp::inferResultTypes() {
  auto table = tensorType(getTable());
  auto ids = tensorType(getIds());
  // A position per row (a ragged batch) gives each row its own embeddings.
  if (getPosition() && tensorType(getPosition()).getRank() == 1)
    return {tensorOf({ids.getDimSize(0), ids.getShape().back(), table.getDimSize(1)},
                     table.getElementType())};
  return {tensorOf({ids.getShape().back(), table.getDimSize(1)}, table.getElementType())};
}

SmallVector<Type> LinearOp::inferResultTypes() {
  auto input = tensorType(getInput());
  SmallVector<int64_t> shape(input.getShape().drop_back());
  shape.push_back(tensorType(getWeight()).getDimSize(0));
  return {tensorOf(shape, input.getElementType())};
}

SmallVector<Type> MatmulOp::inferResultTypes() {
  auto lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  int64_t l0 = lhs.getShape().end()[-2], l1 = lhs.getShape().back();
  int64_t r0 = rhs.getShape().end()[-2], r1 = rhs.getShape().back();
  SmallVector<int64_t> shape(lhs.getShape().drop_back(2));
  shape.push_back(getTransposeLhs() ? l1 : l0);
  shape.push_back(getTransposeRhs() ? r0 : r1);
  return {tensorOf(shape, lhs.getElementType())};
}

SmallVector<Type> SplitOp::inferResultTypes() {
  auto input = tensorType(getInput());
  SmallVector<Type> types;
  for (int64_t size : getSizes()) {
    SmallVector<int64_t> shape(input.getShape());
    shape[getDimAttr().getInt()] = size;
    types.push_back(tensorOf(shape, input.getElementType()));
  }
  return types;
}

SmallVector<Type> AddLayerNormOp::inferResultTypes() {
  return {getInput().getType(), getInput().getType()};
}

SmallVector<Type> CrossEntropyOp::inferResultTypes() {
  return {tensorOf({}, lossElementType(tensorType(getLogits()).getElementType()))};
}

SmallVector<Type> AccuracyOp::inferResultTypes() {
  return {tensorOf({}, lossElementType(tensorType(getLogits()).getElementType()))};
}

SmallVector<Type> SplitHeadsOp::inferResultTypes() {
  auto input = tensorType(getInput());
  int64_t heads = getNumHeadsAttr().getInt();
  return {tensorOf(
      {input.getDimSize(0), heads, input.getDimSize(1), divDims(input.getDimSize(2), heads)},
      input.getElementType())};
}

SmallVector<Type> MergeHeadsOp::inferResultTypes() {
  auto input = tensorType(getInput());
  return {tensorOf(
      {input.getDimSize(0), input.getDimSize(2), mulDims(input.getDimSize(1), input.getDimSize(3))},
      input.getElementType())};
}

/// The output keeps its layout: heads split, or merged (the merge_heads the
/// fusion absorbed).
SmallVector<Type> FusedAttentionOp::inferResultTypes() {
  auto q = tensorType(getQuery());
  int64_t b = q.getDimSize(0), h = q.getDimSize(1), s = q.getDimSize(2), d = q.getDimSize(3);
  Type output = tensorType(getOutput()).getRank() == 3
                    ? tensorOf({b, s, mulDims(h, d)}, q.getElementType())
                    : tensorOf({b, h, s, d}, q.getElementType());
  Type lse = q.getElementType().isF64() ? q.getElementType() : Float32Type::get(getContext());
  return {output, tensorOf({b, h, s}, lse)};
}

SmallVector<Type> AttentionScoresOp::inferResultTypes() {
  auto q = tensorType(getQuery()), k = tensorType(getKey());
  return {tensorOf({q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), k.getDimSize(2)},
                   q.getElementType())};
}

SmallVector<Type> AttentionContextOp::inferResultTypes() {
  auto p = tensorType(getProbs()), v = tensorType(getValue());
  return {tensorOf({p.getDimSize(0), p.getDimSize(1), p.getDimSize(2), v.getDimSize(3)},
                   p.getElementType())};
}

/// all_gather multiplies `dim` by the group size, reduce_scatter divides it;
/// unknown while the mesh cannot be resolved.
static SmallVector<Type> resizedAlongDim(Operation *op, Value input, FlatSymbolRefAttr meshRef,
                                         ArrayAttr axes, int64_t dim, bool grow) {
  auto type = tensorType(input);
  SmallVector<int64_t> shape(type.getShape());
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, meshRef.getAttr());
  int64_t group = 1;
  for (Attribute a : axes) {
    std::optional<int64_t> size =
        mesh ? mesh.getAxisSize(cast<StringAttr>(a).getValue()) : std::nullopt;
    group = size ? group * *size : -1;
  }
  if (dim >= 0 && dim < type.getRank())
    shape[dim] = group < 1 ? kDyn : grow ? mulDims(shape[dim], group) : divDims(shape[dim], group);
  return {tensorOf(shape, type.getElementType())};
}

SmallVector<Type> AllGatherOp::inferResultTypes() {
  return resizedAlongDim(*this, getInput(), getMeshAttr(), getAxes(), getDimAttr().getInt(),
                         /*grow=*/true);
}

SmallVector<Type> ReduceScatterOp::inferResultTypes() {
  return resizedAlongDim(*this, getInput(), getMeshAttr(), getAxes(), getDimAttr().getInt(),
                         /*grow=*/false);
}
