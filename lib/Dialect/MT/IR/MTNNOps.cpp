//===- MTNNOps.cpp - verifiers of embeddings, linear algebra, norms, loss --===//
#include "mt/Dialect/MT/IR/ElementFunctions.h"
#include "mt/Dialect/MT/IR/GradientBuilder.h"
#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  auto table = tensorType(getTable());
  if (table.getRank() != 2 || !isFloatTensor(getTable()))
    return violates(*this, 1) << "the table must be a rank-2 floating-point tensor "
                                 "[vocab, hidden], got "
                              << table;
  if (!isIntegerTensor(getIds()))
    return violates(*this, 2) << "ids must be i32 or i64, got " << getIds().getType();
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) ||
      result.getElementType() != table.getElementType())
    return violates(*this, 3) << "the result must be " << shapeStr(expected) << " of "
                              << table.getElementType() << " (ids shape + [hidden]), got "
                              << result;
  if (getShard() && !isIndexScalar(getShard()))
    return violates(*this, 4) << "the shard index must be tensor<i64>, got "
                              << getShard().getType();
  return success();
}

LogicalResult PositionEmbeddingOp::verify() {
  auto table = tensorType(getTable());
  if (table.getRank() != 2 || !isFloatTensor(getTable()))
    return violates(*this, 1) << "the table must be a rank-2 floating-point tensor "
                                 "[positions, hidden], got "
                              << table;
  auto ids = tensorType(getIds());
  if (!isIntegerTensor(getIds()) || ids.getRank() < 1)
    return violates(*this, 2) << "ids must be i32 or i64 of rank >= 1, got " << ids;
  // A position per row needs [batch, seq] ids; it gives each row its own
  // embeddings (C3).
  std::optional<int64_t> batch;
  if (ids.getRank() == 2)
    batch = ids.getDimSize(0);
  if (getPosition() && !isPositionOperand(getPosition(), batch))
    return violates(*this, 5) << "the position must be tensor<i64>, or one i64 per row of "
                                 "[batch, seq] ids, got "
                              << getPosition().getType() << " for ids " << ids;
  int64_t seq = ids.getShape().back();
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) ||
      result.getElementType() != table.getElementType())
    return violates(*this, 3) << "the result must be " << shapeStr(expected) << " of "
                              << table.getElementType()
                              << " ([seq, hidden], or [batch, seq, hidden] with a position per "
                                 "row), got "
                              << result;
  if (!ShapedType::isDynamic(seq) && !table.isDynamicDim(0) && seq > table.getDimSize(0))
    return violates(*this, 4) << "sequence length " << seq << " exceeds the table's "
                              << table.getDimSize(0) << " positions";
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  auto input = tensorType(getInput()), weight = tensorType(getWeight());
  auto result = tensorType(getResult());
  if (weight.getRank() != 2)
    return violates(*this, 1) << "the weight must be [out_features, in_features], got " << weight;
  if (input.getRank() < 1 || !dimsAgree(input.getShape().back(), weight.getDimSize(1)))
    return violates(*this, 2) << "the input's last dimension must equal in_features "
                              << weight.getDimSize(1) << ", got " << input;
  if (getBias()) {
    auto bias = tensorType(getBias());
    if (bias.getRank() != 1 || !dimsAgree(bias.getDimSize(0), weight.getDimSize(0)))
      return violates(*this, 3) << "the bias must be [" << shapeStr(weight.getDimSize(0))
                                << "] (out_features), got " << bias;
  }
  SmallVector<int64_t> expected = inferredShape(*this);
  if (!shapesAgree(result.getShape(), expected))
    return violates(*this, 4) << "the result must be " << shapeStr(expected) << ", got " << result;
  Type elt = input.getElementType();
  if (!isSupportedFloatType(elt) || weight.getElementType() != elt ||
      result.getElementType() != elt ||
      (getBias() && tensorType(getBias()).getElementType() != elt))
    return violates(*this, 5) << "input, weight, bias and result must share one "
                                 "floating-point element type";
  return success();
}

LogicalResult MatmulOp::verify() {
  auto lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  auto result = tensorType(getResult());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return violates(*this, 1) << "both operands need rank >= 2, got " << lhs << " and " << rhs;
  ArrayRef<int64_t> batch = lhs.getShape().drop_back(2);
  if (rhs.getRank() != 2 && !shapesAgree(rhs.getShape().drop_back(2), batch))
    return violates(*this, 2) << "rhs must have lhs's batch dimensions [" << shapeStr(batch)
                              << "] or be a matrix, got " << rhs;
  int64_t l0 = lhs.getShape().end()[-2], l1 = lhs.getShape().back();
  int64_t r0 = rhs.getShape().end()[-2], r1 = rhs.getShape().back();
  int64_t k = getTransposeLhs() ? l0 : l1, k2 = getTransposeRhs() ? r1 : r0;
  if (!dimsAgree(k, k2))
    return violates(*this, 3) << "contraction sizes differ: " << shapeStr(k) << " vs "
                              << shapeStr(k2);
  SmallVector<int64_t> expected = inferredShape(*this);
  if (!shapesAgree(result.getShape(), expected))
    return violates(*this, 4) << "the result must be " << shapeStr(expected) << ", got " << result;
  Type elt = lhs.getElementType();
  // 16-bit operands may give an fp32 result (accumulated in fp32 and not
  // rounded: a weight gradient going straight into its fp32 accumulator).
  bool widened =
      isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() == 16 && result.getElementType().isF32();
  if (!isSupportedFloatType(elt) || rhs.getElementType() != elt ||
      (result.getElementType() != elt && !widened))
    return violates(*this, 5) << "operands must share one floating-point element type, and "
                                 "the result must have it (or be f32 when it is 16-bit)";
  if (getPlus() && getPlus().getType() != getResult().getType())
    return violates(*this, 6) << "the tensor added with `plus` must have the result's type "
                              << getResult().getType() << ", got " << getPlus().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization and activations
//===----------------------------------------------------------------------===//

LogicalResult mt::detail::verifyNorm(Operation *op, Value input, ValueRange affine,
                                     double epsilon) {
  auto type = tensorType(input);
  if (type.getRank() < 1 || !isFloatTensor(input))
    return violates(op, 1) << "the input must be a floating-point tensor of rank >= 1, got "
                           << type;
  int64_t features = type.getShape().back();
  for (Value v : affine) {
    auto t = tensorType(v);
    if (t.getRank() != 1 || !dimsAgree(t.getDimSize(0), features) ||
        t.getElementType() != type.getElementType())
      return violates(op, 2) << "scale and shift must be [" << shapeStr(features) << "] of "
                             << type.getElementType() << ", got " << t;
  }
  if (!(epsilon > 0.0))
    return violates(op, 3) << "epsilon must be positive, got " << epsilon;
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getInput(), {getGamma(), getBeta()}, getEpsilon().convertToDouble());
}

LogicalResult AddLayerNormOp::verify() {
  return verifyNorm(*this, getInput(), {getGamma(), getBeta()}, getEpsilon().convertToDouble());
}

LogicalResult RmsNormOp::verify() {
  return verifyNorm(*this, getInput(), {getGamma()}, getEpsilon().convertToDouble());
}

LogicalResult GeluOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return success();
}

/// The fused ops' bias (constraint `n`): `[features]` of the input's
/// element type, features being the input's last dimension.
static LogicalResult verifyBias(Operation *op, Value input, Value biasValue, unsigned n) {
  auto type = tensorType(input);
  auto bias = tensorType(biasValue);
  if (bias.getRank() != 1 || bias.getElementType() != type.getElementType() ||
      (!ShapedType::isDynamic(bias.getDimSize(0)) &&
       !ShapedType::isDynamic(type.getShape().back()) &&
       bias.getDimSize(0) != type.getShape().back()))
    return violates(op, n) << "the bias must be [" << type.getShape().back() << "] of "
                           << type.getElementType() << " (the input's last dimension), got "
                           << biasValue.getType();
  return success();
}

/// mt.bias_gelu and its gradient: a float input (C1) and its bias (C2).
template <typename OpT> LogicalResult verifyBiasGelu(OpT op) {
  auto type = tensorType(op.getInput());
  if (type.getRank() < 1 || !isFloatTensor(op.getInput()))
    return violates(op, 1) << "the input must be a floating-point tensor of rank >= 1, got "
                           << op.getInput().getType();
  return verifyBias(op, op.getInput(), op.getBias(), 2);
}

LogicalResult BiasGeluOp::verify() { return verifyBiasGelu(*this); }
LogicalResult BiasGeluGradOp::verify() { return verifyBiasGelu(*this); }

LogicalResult LogSoftmaxOp::verify() {
  if (tensorType(getInput()).getRank() < 1 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be a floating-point tensor of rank >= 1, got "
                              << getInput().getType();
  return success();
}

LogicalResult SoftmaxOp::verify() {
  auto type = tensorType(getInput());
  if (type.getRank() < 1 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be a floating-point tensor of rank >= 1, got "
                              << type;
  if (getMask() == MaskKind::causal) {
    if (type.getRank() < 2)
      return violates(*this, 2) << "a causal mask needs [..., queries, keys], got " << type;
    int64_t sq = type.getShape().end()[-2], sk = type.getShape().back();
    if (!ShapedType::isDynamic(sq) && !ShapedType::isDynamic(sk) && sk < sq)
      return violates(*this, 2) << "a causal mask needs at least as many keys as queries, got "
                                << sq << " queries and " << sk << " keys";
  }
  if (getKeyMask()) {
    auto mask = tensorType(getKeyMask());
    SmallVector<int64_t> expected{type.getDimSize(0), type.getShape().back()};
    if (type.getRank() < 2 || !mask.getElementType().isInteger(1) ||
        !shapesAgree(mask.getShape(), expected))
      return violates(*this, 3) << "key_mask must be i1 [batch, keys] = [" << shapeStr(expected)
                                << "], got " << mask;
  }
  double scale = getScale().convertToDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return violates(*this, 4) << "scale must be positive and finite, got " << scale;
  if (getPosition() && (!isIndexScalar(getPosition()) || getMask() != MaskKind::causal))
    return violates(*this, 5) << "position must be tensor<i64> with mask = causal, got "
                              << getPosition().getType()
                              << " with mask = " << stringifyMaskKind(getMask());
  return success();
}

LogicalResult DropoutOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  return verifyDropoutKey(*this, tensorType(getInput()));
}

LogicalResult BiasDropoutAddOp::verify() {
  auto type = tensorType(getInput());
  if (type.getRank() < 1 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be a floating-point tensor of rank >= 1, got "
                              << getInput().getType();
  if (failed(verifyDropoutKey(*this, type)))
    return failure();
  return verifyBias(*this, getInput(), getBias(), 8);
}

LogicalResult DropoutMaskOp::verify() {
  auto type = tensorType(getResult());
  if (!type.getElementType().isInteger(1))
    return violates(*this, 1) << "the mask must be a tensor of i1, got " << type;
  return verifyDropoutKey(*this, type);
}

LogicalResult MaskedScaleOp::verify() {
  if (!isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point, got " << getInput().getType();
  auto mask = tensorType(getMask());
  if (!mask.getElementType().isInteger(1) || mask.getShape() != tensorType(getInput()).getShape())
    return violates(*this, 2) << "the mask must be i1 of the input's shape, got " << mask;
  double scale = getScale().convertToDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return violates(*this, 3) << "scale must be positive and finite, got " << scale;
  return success();
}

static LogicalResult verifyBroadcastBinary(Operation *op, Value lhsValue, Value rhsValue) {
  auto lhs = tensorType(lhsValue), rhs = tensorType(rhsValue);
  if (lhs.getElementType() != rhs.getElementType())
    return violates(op, 1) << "operands must share an element type, got " << lhs.getElementType()
                           << " and " << rhs.getElementType();
  if (rhs.getRank() > lhs.getRank() ||
      !shapesAgree(rhs.getShape(), lhs.getShape().take_back(rhs.getRank())))
    return violates(op, 2) << "rhs shape " << shapeStr(rhs.getShape())
                           << " must equal a suffix of lhs shape " << shapeStr(lhs.getShape());
  return success();
}

LogicalResult AddOp::verify() { return verifyBroadcastBinary(*this, getLhs(), getRhs()); }
LogicalResult MulOp::verify() { return verifyBroadcastBinary(*this, getLhs(), getRhs()); }

Value DropoutOp::withoutDropout(OpBuilder &) { return getInput(); }

Value BiasDropoutAddOp::withoutDropout(OpBuilder &b) {
  // residual + (input + bias), in the order the fused kernel adds.
  Type type = getType();
  Value biased = AddOp::create(b, getLoc(), type, getInput(), getBias());
  Value sum = AddOp::create(b, getLoc(), type, getResidual(), biased);
  if (auto layer = (*this)->getAttr(kLayerAttrName))
    for (Value v : {biased, sum})
      v.getDefiningOp()->setAttr(kLayerAttrName, layer);
  return sum;
}

Value AddOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return arith::AddFOp::create(b, loc, operands[0], operands[1]);
}
bool AddOp::carriesSplit() { return false; }

Value MulOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return arith::MulFOp::create(b, loc, operands[0], operands[1]);
}

Value MaskedScaleOp::buildScalar(OpBuilder &b, Location loc, ValueRange operands) {
  return keepScaled(b, loc, operands[1], operands[0], getScale().convertToDouble());
}

LogicalResult SplitOp::verify() {
  auto type = tensorType(getInput());
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= type.getRank())
    return violates(*this, 1) << "dim " << dim << " is outside rank " << type.getRank();
  int64_t total = 0;
  for (int64_t s : getSizes()) {
    if (s < 1)
      return violates(*this, 2) << "sizes must be >= 1, got " << s;
    total += s;
  }
  if (!dimsAgree(total, type.getDimSize(dim)))
    return violates(*this, 2) << "sizes add up to " << total << " but dimension " << dim << " has "
                              << type.getDimSize(dim);
  if (getResults().size() != getSizes().size())
    return violates(*this, 3) << "expected one result per size (" << getSizes().size() << "), got "
                              << getResults().size();
  for (auto [result, size] : llvm::zip(getResults(), getSizes())) {
    SmallVector<int64_t> expected(type.getShape());
    expected[dim] = size;
    auto t = tensorType(result);
    if (!shapesAgree(t.getShape(), expected) || t.getElementType() != type.getElementType())
      return violates(*this, 3) << "expected a result " << shapeStr(expected) << " of "
                                << type.getElementType() << ", got " << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

LogicalResult mt::detail::verifyCrossEntropyOperands(Operation *op, Value logitsValue,
                                                     Value labelsValue, Value maskValue,
                                                     IntegerAttr numClasses) {
  auto logits = tensorType(logitsValue);
  if (logits.getRank() < 1 || !isFloatTensor(logitsValue))
    return violates(op, 1) << "logits must be a floating-point tensor [..., classes], got "
                           << logits;
  auto labels = tensorType(labelsValue);
  ArrayRef<int64_t> tokens = logits.getShape().drop_back();
  if (!isIntegerTensor(labelsValue) || !shapesAgree(labels.getShape(), tokens))
    return violates(op, 2) << "labels must be i32 or i64 [" << shapeStr(tokens) << "], got "
                           << labels;
  if (maskValue) {
    auto mask = tensorType(maskValue);
    if (!isFloatTensor(maskValue) || !shapesAgree(mask.getShape(), tokens))
      return violates(op, 3) << "the loss mask must be floating-point [" << shapeStr(tokens)
                             << "], got " << mask;
  }
  if (numClasses) {
    int64_t n = numClasses.getInt(), classes = logits.getShape().back();
    if (n < 1 || (!ShapedType::isDynamic(classes) && n > classes))
      return violates(op, 5) << "num_classes must be in [1, " << shapeStr(classes) << "], got "
                             << n;
  }
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  if (failed(verifyCrossEntropyOperands(*this, getLogits(), getLabels(), getLossMask(),
                                        getNumClassesAttr())))
    return failure();
  auto result = tensorType(getResult());
  Type loss = lossElementType(tensorType(getLogits()).getElementType());
  if (result.getRank() != 0 || result.getElementType() != loss)
    return violates(*this, 4) << "the result must be " << typeStr(RankedTensorType::get({}, loss))
                              << ", got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Vocab-parallel cross-entropy
//===----------------------------------------------------------------------===//

LogicalResult mt::detail::verifyVocabParallelOperands(Operation *op, Value logitsValue, Value shard,
                                                      Value labelsValue, ValueRange perToken) {
  auto logits = tensorType(logitsValue);
  if (logits.getRank() < 1 || !isFloatTensor(logitsValue))
    return violates(op, 1) << "logits must be a floating-point tensor [..., classes], got "
                           << logits;
  if (!isIndexScalar(shard))
    return violates(op, 2) << "the shard index must be tensor<i64>, got " << shard.getType();
  ArrayRef<int64_t> rows = logits.getShape().drop_back();
  if (labelsValue) {
    auto labels = tensorType(labelsValue);
    if (!isIntegerTensor(labelsValue) || !shapesAgree(labels.getShape(), rows))
      return violates(op, 3) << "labels must be i32 or i64 of shape " << shapeStr(rows) << ", got "
                             << labels;
  }
  for (Value v : perToken) {
    auto t = tensorType(v);
    if (!shapesAgree(t.getShape(), rows) || t.getElementType() != logits.getElementType())
      return violates(op, 4) << "per-token values must be " << shapeStr(rows) << " of "
                             << logits.getElementType() << ", got " << t;
  }
  return success();
}

LogicalResult VocabParallelMaxOp::verify() {
  if (failed(verifyVocabParallelOperands(*this, getLogits(), getShard(), Value(), getResult())))
    return failure();
  if (getNumClassesAttr().getInt() < 1)
    return violates(*this, 5) << "num_classes must be >= 1, got " << getNumClassesAttr().getInt();
  return success();
}

LogicalResult VocabParallelStatsOp::verify() {
  if (failed(verifyVocabParallelOperands(*this, getLogits(), getShard(), getLabels(),
                                         {getMax(), getSumExp(), getLabelLogit()})))
    return failure();
  if (getNumClassesAttr().getInt() < 1)
    return violates(*this, 5) << "num_classes must be >= 1, got " << getNumClassesAttr().getInt();
  return success();
}

LogicalResult FusedCrossEntropyOp::verify() {
  if (failed(verifyCrossEntropyOperands(*this, getLogits(), getLabels(), getLossMask(),
                                        getNumClassesAttr())))
    return failure();
  auto logits = tensorType(getLogits());
  auto loss = RankedTensorType::get({}, lossElementType(logits.getElementType()));
  if (getLoss().getType() != loss)
    return violates(*this, 4) << "the loss must be " << typeStr(loss) << ", got "
                              << getLoss().getType();
  if (getGrad().getType() != loss)
    return violates(*this, 6) << "grad must be " << typeStr(loss) << " (the loss's gradient), got "
                              << getGrad().getType();
  auto logitsGrad = tensorType(getLogitsGrad());
  if (!isFloatTensor(getLogitsGrad()) || !shapesAgree(logitsGrad.getShape(), logits.getShape()))
    return violates(*this, 7) << "the logits' gradient must be a floating-point tensor of the "
                                 "logits' shape ["
                              << shapeStr(logits.getShape()) << "], got " << logitsGrad;
  return success();
}

LogicalResult CrossEntropyFromStatsOp::verify() {
  auto sumExp = tensorType(getSumExp());
  if (!isFloatTensor(getSumExp()) || getLabelLogit().getType() != sumExp ||
      getMax().getType() != sumExp)
    return violates(*this, 1) << "sum_exp, label_logit and max must be one floating-point "
                                 "type, got "
                              << sumExp << ", " << getLabelLogit().getType() << ", "
                              << getMax().getType();
  if (getLossMask()) {
    auto mask = tensorType(getLossMask());
    if (!isFloatTensor(getLossMask()) || !shapesAgree(mask.getShape(), sumExp.getShape()))
      return violates(*this, 2) << "the loss mask must be floating-point "
                                << shapeStr(sumExp.getShape()) << ", got " << mask;
  }
  auto result = tensorType(getResult());
  if (result.getRank() != 0 || result.getElementType() != lossElementType(sumExp.getElementType()))
    return violates(*this, 3) << "the result must be tensor<"
                              << typeStr(lossElementType(sumExp.getElementType())) << ">, got "
                              << result;
  return success();
}

LogicalResult AccuracyOp::verify() {
  if (failed(verifyCrossEntropyOperands(*this, getLogits(), getLabels(), getLossMask(),
                                        getNumClassesAttr())))
    return failure();
  auto result = tensorType(getResult());
  Type loss = lossElementType(tensorType(getLogits()).getElementType());
  if (result.getRank() != 0 || result.getElementType() != loss)
    return violates(*this, 4) << "the result must be " << typeStr(RankedTensorType::get({}, loss))
                              << ", got " << result;
  return success();
}

LogicalResult AccuracyFromStatsOp::verify() {
  auto labelLogit = tensorType(getLabelLogit());
  if (!isFloatTensor(getLabelLogit()) || getMax().getType() != labelLogit)
    return violates(*this, 1) << "label_logit and max must be one floating-point type, got "
                              << labelLogit << ", " << getMax().getType();
  if (getLossMask()) {
    auto mask = tensorType(getLossMask());
    if (!isFloatTensor(getLossMask()) || !shapesAgree(mask.getShape(), labelLogit.getShape()))
      return violates(*this, 2) << "the loss mask must be floating-point "
                                << shapeStr(labelLogit.getShape()) << ", got " << mask;
  }
  auto result = tensorType(getResult());
  if (result.getRank() != 0 ||
      result.getElementType() != lossElementType(labelLogit.getElementType()))
    return violates(*this, 3) << "the result must be tensor<"
                              << typeStr(lossElementType(labelLogit.getElementType())) << ">, got "
                              << result;
  return success();
}

//===- Costs and in-place results -------------------------------------------===//

/// Extent of dimension `fromEnd` of `v`, counted from the last (0 when
/// unknown).
static int64_t trailingExtent(Value v, unsigned fromEnd) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() <= fromEnd)
    return 0;
  int64_t d = t.getDimSize(t.getRank() - 1 - fromEnd);
  return ShapedType::isDynamic(d) ? 0 : d;
}

int64_t LinearOp::getContractionDepth() { return trailingExtent(getInput(), 0); }

int64_t MatmulOp::getContractionDepth() {
  return trailingExtent(getLhs(), getTransposeLhs() ? 1 : 0);
}

Value MatmulOp::getInPlaceOperand() { return getPlus(); }
