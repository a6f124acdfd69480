//===- MTAttentionOps.cpp - verifiers of the attention building blocks -----===//
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Support/RelativePositionBuckets.h"

#include "VerifyHelpers.h"

#include <cmath>

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult SplitHeadsOp::verify() {
  auto input = tensorType(getInput());
  if (input.getRank() != 3)
    return violates(*this, 1) << "the input must be [batch, seq, hidden], got " << input;
  int64_t heads = getNumHeadsAttr().getInt(), hidden = input.getDimSize(2);
  if (heads < 1 || (!ShapedType::isDynamic(hidden) && hidden % heads != 0))
    return violates(*this, 2) << "num_heads " << heads << " must be >= 1 and divide hidden "
                              << shapeStr(hidden);
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) ||
      result.getElementType() != input.getElementType())
    return violates(*this, 3) << "the result must be " << shapeStr(expected)
                              << " [batch, heads, seq, head_dim], got " << result;
  return success();
}

LogicalResult MergeHeadsOp::verify() {
  auto input = tensorType(getInput());
  if (input.getRank() != 4)
    return violates(*this, 1) << "the input must be [batch, heads, seq, head_dim], got " << input;
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) ||
      result.getElementType() != input.getElementType())
    return violates(*this, 2) << "the result must be " << shapeStr(expected)
                              << " [batch, seq, heads*head_dim], got " << result;
  return success();
}

/// C1-C3 of attention_scores and attention_context: two rank-4 float
/// operands of one element type, equal batch, and query heads that group
/// evenly over key/value heads.
static LogicalResult verifyHeadPair(Operation *op, Value a, Value b) {
  auto ta = tensorType(a), tb = tensorType(b);
  if (ta.getRank() != 4 || tb.getRank() != 4 || !isFloatTensor(a) ||
      ta.getElementType() != tb.getElementType())
    return violates(op, 1) << "operands must be rank-4 floating-point tensors of one "
                              "element type, got "
                           << ta << " and " << tb;
  int64_t hq = ta.getDimSize(1), hk = tb.getDimSize(1);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) && (hk < 1 || hq % hk != 0))
    return violates(op, 3) << hq << " query heads do not group evenly over " << hk
                           << " key/value heads";
  return success();
}

LogicalResult AttentionScoresOp::verify() {
  if (failed(verifyHeadPair(*this, getQuery(), getKey())))
    return failure();
  auto q = tensorType(getQuery()), k = tensorType(getKey());
  if (!dimsAgree(q.getDimSize(0), k.getDimSize(0)) || !dimsAgree(q.getDimSize(3), k.getDimSize(3)))
    return violates(*this, 2) << "query and key must agree in batch and head_dim, got " << q
                              << " and " << k;
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) || result.getElementType() != q.getElementType())
    return violates(*this, 4) << "the result must be " << shapeStr(expected)
                              << " [batch, heads, queries, keys], got " << result;
  return success();
}

LogicalResult AttentionContextOp::verify() {
  if (failed(verifyHeadPair(*this, getProbs(), getValue())))
    return failure();
  auto p = tensorType(getProbs()), v = tensorType(getValue());
  if (!dimsAgree(p.getDimSize(0), v.getDimSize(0)) || !dimsAgree(p.getDimSize(3), v.getDimSize(2)))
    return violates(*this, 2) << "probs and value must agree in batch and keys, got " << p
                              << " and " << v;
  SmallVector<int64_t> expected = inferredShape(*this);
  auto result = tensorType(getResult());
  if (!shapesAgree(result.getShape(), expected) || result.getElementType() != p.getElementType())
    return violates(*this, 4) << "the result must be " << shapeStr(expected)
                              << " [batch, heads, queries, head_dim], got " << result;
  return success();
}

LogicalResult RotaryOp::verify() {
  auto input = tensorType(getInput());
  if (input.getRank() != 4 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point [batch, heads, seq, "
                                 "head_dim], got "
                              << input;
  int64_t headDim = input.getDimSize(3);
  // An explicit rotary_dim is always checked; the default only when static.
  bool explicitDim = static_cast<bool>(getRotaryDimAttr());
  int64_t rotary = explicitDim ? getRotaryDimAttr().getInt() : headDim;
  if ((explicitDim || !ShapedType::isDynamic(rotary)) &&
      (rotary < 2 || rotary % 2 != 0 || (!ShapedType::isDynamic(headDim) && rotary > headDim)))
    return violates(*this, 2) << "the rotary dimension must be even, >= 2 and <= head_dim "
                              << shapeStr(headDim) << ", got " << rotary;
  double base = getBase().convertToDouble();
  if (!(base > 0.0) || !std::isfinite(base))
    return violates(*this, 3) << "base must be positive and finite, got " << base;
  int64_t offset = getPositionOffsetAttr().getInt();
  if (offset < 0)
    return violates(*this, 4) << "position_offset must be >= 0, got " << offset;
  if (getPosition() && !isPositionOperand(getPosition(), input.getDimSize(0)))
    return violates(*this, 5) << "the position must be tensor<i64>, or one i64 per row of the "
                                 "batch, got "
                              << getPosition().getType() << " for input " << input;
  return success();
}

LogicalResult AlibiOp::verify() {
  auto input = tensorType(getInput());
  if (input.getRank() != 4 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point [batch, heads, queries, "
                                 "keys], got "
                              << input;
  int64_t heads = input.getDimSize(1);
  int64_t numHeads = getNumHeadsAttr().getInt();
  if (numHeads < 1 || (!ShapedType::isDynamic(heads) && heads > numHeads))
    return violates(*this, 2) << "num_heads must be >= 1 and at least the " << shapeStr(heads)
                              << " heads present, got " << numHeads;
  if (getPosition() && !isIndexScalar(getPosition()))
    return violates(*this, 3) << "the position must be tensor<i64>, got "
                              << getPosition().getType();
  if (getShard() && !isIndexScalar(getShard()))
    return violates(*this, 4) << "the shard index must be tensor<i64>, got "
                              << getShard().getType();
  if (getShard() && !ShapedType::isDynamic(heads) && numHeads % heads != 0)
    return violates(*this, 5) << "with a shard index, the " << heads
                              << " heads present must divide num_heads " << numHeads;
  double scale = getSlopeScale().convertToDouble();
  if (!(scale > 0) || !std::isfinite(scale))
    return violates(*this, 6) << "slope_scale must be positive and finite, got " << scale;
  return success();
}

LogicalResult mt::detail::verifyRelativeBuckets(Operation *op, int64_t numBuckets,
                                                bool bidirectional, int64_t maxDistance) {
  if (ShapedType::isDynamic(numBuckets))
    return success();
  std::string problem = bucketCountProblem(numBuckets, bidirectional);
  if (!problem.empty())
    return violates(op, 3) << problem;
  problem = maxDistanceProblem(numBuckets, bidirectional, maxDistance);
  if (!problem.empty())
    return violates(op, 4) << problem;
  return success();
}

LogicalResult RelativePositionBiasOp::verify() {
  auto input = tensorType(getInput());
  if (input.getRank() != 4 || !isFloatTensor(getInput()))
    return violates(*this, 1) << "the input must be floating-point [batch, heads, queries, "
                                 "keys], got "
                              << input;
  auto table = tensorType(getTable());
  if (table.getRank() != 2 || table.getElementType() != input.getElementType() ||
      !dimsAgree(table.getDimSize(1), input.getDimSize(1)))
    return violates(*this, 2) << "the table must be [num_buckets, " << shapeStr(input.getDimSize(1))
                              << "] of " << input.getElementType() << ", got " << table;
  if (failed(verifyRelativeBuckets(*this, table.getDimSize(0), getBidirectional(),
                                   getMaxDistanceAttr().getInt())))
    return failure();
  if (getPosition() && !isIndexScalar(getPosition()))
    return violates(*this, 5) << "the position must be tensor<i64>, got "
                              << getPosition().getType();
  return success();
}

int64_t AttentionScoresOp::getContractionDepth() {
  auto t = cast<RankedTensorType>(getQuery().getType());
  return ShapedType::isDynamic(t.getShape().back()) ? 0 : t.getShape().back();
}

int64_t AttentionContextOp::getContractionDepth() {
  auto t = cast<RankedTensorType>(getProbs().getType());
  return ShapedType::isDynamic(t.getShape().back()) ? 0 : t.getShape().back();
}

/// The multiply-adds of one score matrix, [batch, heads, Sq, Sk] x head_dim
/// (0 when a size is unknown): fused attention's work in units of it.
static int64_t scoreProducts(Value query, Value key) {
  auto q = cast<RankedTensorType>(query.getType()), k = cast<RankedTensorType>(key.getType());
  if (!q.hasStaticShape() || !k.hasStaticShape())
    return 0;
  return q.getNumElements() * k.getDimSize(2);
}

int64_t FusedAttentionOp::getContractionDepth() {
  auto q = cast<RankedTensorType>(getQuery().getType());
  return ShapedType::isDynamic(q.getShape().back()) ? 0 : q.getShape().back();
}

// Scores and context: two products of the score matrix's size (the softmax
// and dropout, one per score, are small beside them).
int64_t FusedAttentionOp::getFlops() { return 4 * scoreProducts(getQuery(), getKey()); }

int64_t FusedAttentionGradOp::getContractionDepth() {
  auto q = cast<RankedTensorType>(getQuery().getType());
  return ShapedType::isDynamic(q.getShape().back()) ? 0 : q.getShape().back();
}

// FlashAttention's backward: the scores again, then dV, dP, dQ and dK.
int64_t FusedAttentionGradOp::getFlops() { return 10 * scoreProducts(getQuery(), getKey()); }

LogicalResult CacheInsertOp::verify() {
  auto cache = tensorType(getCache()), update = tensorType(getUpdate());
  if (cache.getRank() != 4 || !isFloatTensor(getCache()))
    return violates(*this, 1) << "the cache must be a rank-4 floating-point tensor [batch, "
                                 "heads, capacity, head_dim], got "
                              << cache;
  bool fits = update.getRank() == 4 && update.getElementType() == cache.getElementType();
  for (unsigned d : {0u, 1u, 3u})
    fits = fits && dimsAgree(update.getDimSize(d), cache.getDimSize(d));
  if (fits && !update.isDynamicDim(2) && !cache.isDynamicDim(2))
    fits = update.getDimSize(2) <= cache.getDimSize(2);
  if (!fits)
    return violates(*this, 2) << "the update must be [batch, heads, n, head_dim] of the cache's "
                                 "element type with n <= capacity, got "
                              << update << " for a cache " << cache;
  if (!isIndexScalar(getPosition()))
    return violates(*this, 3) << "the position must be tensor<i64>, got "
                              << getPosition().getType();
  return success();
}

Value CacheInsertOp::getInPlaceOperand() { return getCache(); }

/// C1-C16 of mt.fused_attention, shared with its gradient (whose output and
/// log-sum-exp are operands).
template <typename FusedOp>
static LogicalResult verifyFusedAttention(FusedOp op, Value output, Value lse) {
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
  auto q = tensorType(query), k = tensorType(key), v = tensorType(value);
  Type element = q.getElementType();
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 || !isFloatTensor(query) ||
      k.getElementType() != element || v.getElementType() != element)
    return violates(op, 1) << "query, key and value must be rank-4 floating-point tensors of "
                              "one element type, got "
                           << q << ", " << k << " and " << v;
  int64_t b = q.getDimSize(0), hq = q.getDimSize(1), sq = q.getDimSize(2), d = q.getDimSize(3);
  int64_t hk = k.getDimSize(1), sk = k.getDimSize(2);
  auto scores = RankedTensorType::get({b, hq, sq, sk}, element);
  if (failed(verifyDropoutKey(op, scores)))
    return failure();
  if (!shapesAgree(k.getShape(), v.getShape()) || !dimsAgree(k.getDimSize(0), b) ||
      !dimsAgree(k.getDimSize(3), d))
    return violates(op, 8) << "key and value must have one shape, with the query's batch and "
                              "head_dim, got "
                           << q << ", " << k << " and " << v;
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) && (hk < 1 || hq % hk != 0))
    return violates(op, 9) << hq << " query heads do not group evenly over " << hk
                           << " key/value heads";
  auto o = tensorType(output);
  SmallVector<int64_t> split{b, hq, sq, d};
  SmallVector<int64_t> merged{
      b, sq, ShapedType::isDynamic(hq) || ShapedType::isDynamic(d) ? ShapedType::kDynamic : hq * d};
  if (o.getElementType() != element ||
      !(shapesAgree(o.getShape(), split) || shapesAgree(o.getShape(), merged)))
    return violates(op, 10) << "the output must be " << shapeStr(split) << " or "
                            << shapeStr(merged) << " of the query's element type, got " << o;
  auto l = tensorType(lse);
  SmallVector<int64_t> rows{b, hq, sq};
  Type lseElement = element.isF64() ? element : Float32Type::get(op.getContext());
  if (l.getElementType() != lseElement || !shapesAgree(l.getShape(), rows))
    return violates(op, 11) << "the log-sum-exp must be " << lseElement
                            << " [batch, heads, queries] = " << shapeStr(rows) << ", got " << l;
  if (op.getMask() == MaskKind::causal && !ShapedType::isDynamic(sq) &&
      !ShapedType::isDynamic(sk) && sk < sq)
    return violates(op, 12) << "a causal mask needs at least as many keys as queries, got " << sq
                            << " queries and " << sk << " keys";
  if (op.getKeyMask()) {
    auto mask = tensorType(op.getKeyMask());
    SmallVector<int64_t> expected{b, sk};
    if (!mask.getElementType().isInteger(1) || !shapesAgree(mask.getShape(), expected))
      return violates(op, 13) << "key_mask must be i1 [batch, keys] = [" << shapeStr(expected)
                              << "], got " << mask;
  }
  double scale = op.getScale().convertToDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return violates(op, 14) << "scale must be positive and finite, got " << scale;
  if (op.getShardDimAttr() && op.getShardDimAttr().getInt() != 1)
    return violates(op, 15) << "shard_dim must be 1 (the heads), got "
                            << op.getShardDimAttr().getInt();
  if (op.getBlockKeys() < 1)
    return violates(op, 16) << "block_keys must be >= 1, got " << op.getBlockKeys();
  return success();
}

LogicalResult FusedAttentionOp::verify() {
  return verifyFusedAttention(*this, getOutput(), getLse());
}

LogicalResult FusedAttentionGradOp::verify() {
  return verifyFusedAttention(*this, getOutput(), getLse());
}
