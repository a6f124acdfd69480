//===- BuildInference.cpp - prefill and decode over a KV cache -------------===//
#include "InferenceSites.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/DropoutOff.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_BUILDINFERENCEPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// The cache capacity: the option, else the rows of the position table.
FailureOr<int64_t> capacityOf(func::FuncOp model, int64_t option) {
  if (option > 0)
    return option;
  int64_t rows = 0;
  model.walk([&](PositionEmbeddingOp p) {
    rows = std::max(rows, cast<RankedTensorType>(p.getTable().getType()).getDimSize(0));
  });
  if (rows <= 0)
    return model.emitError("mt-build-inference: the model has no position table to size its "
                           "KV caches by; give capacity");
  return rows;
}

/// Attention site `n` (scores -> causal softmax -> context) reads and
/// appends to KV caches that become arguments of `fn`; the updated caches
/// and their argument numbers go to `updated`.
LogicalResult cacheSite(func::FuncOp fn, AttentionScoresOp scores, size_t n, int64_t capacity,
                        Value position, Value cacheMask,
                        SmallVectorImpl<std::pair<Value, unsigned>> &updated) {
  MLIRContext *ctx = fn.getContext();
  // Position biases (ALiBi's, T5's), when the model has them, sit between
  // scores and softmax.
  Operation *bias = scores->hasOneUse() ? *scores->user_begin() : nullptr;
  if (!isa_and_nonnull<AlibiOp, RelativePositionBiasOp>(bias))
    bias = nullptr;
  AttentionContextOp context = contextOf(scores);
  auto softmax = context ? context.getProbs().getDefiningOp<SoftmaxOp>() : SoftmaxOp();
  if (!softmax || softmax.getMask() != MaskKind::causal)
    return refuseForInference(scores)
           << "an attention site must be mt.attention_scores -> (mt.alibi or "
              "mt.relative_position_bias ->) a causal mt.softmax -> "
              "mt.attention_context, each used once";
  if (softmax.getKeyMask())
    return refuseForInference(softmax) << "KV-cache inference with a padding mask is not supported";
  auto keyType = cast<RankedTensorType>(scores.getKey().getType());
  auto cacheType = RankedTensorType::get(
      {keyType.getDimSize(0), keyType.getDimSize(1), capacity, keyType.getDimSize(3)},
      keyType.getElementType());
  if (cast<RankedTensorType>(context.getValue().getType()).getDimSize(1) != keyType.getDimSize(1))
    return refuseForInference(context) << "keys and values have different head counts";
  auto cacheArg = [&](StringRef kind) -> FailureOr<BlockArgument> {
    unsigned index = fn.getNumArguments();
    auto attrs = DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, kKvCacheAttrName),
                             StringAttr::get(ctx, kind + "." + std::to_string(n)))});
    if (failed(fn.insertArgument(index, cacheType, attrs, scores.getLoc())))
      return failure();
    return fn.getArgument(index);
  };
  FailureOr<BlockArgument> keyCache = cacheArg("k"), valueCache = cacheArg("v");
  if (failed(keyCache) || failed(valueCache))
    return failure();
  OpBuilder b(scores);
  auto keys =
      CacheInsertOp::create(b, scores.getLoc(), cacheType, *keyCache, scores.getKey(), position);
  b.setInsertionPoint(context);
  auto values = CacheInsertOp::create(b, context.getLoc(), cacheType, *valueCache,
                                      context.getValue(), position);
  if (Attribute layer = scores->getAttr(kLayerAttrName))
    for (Operation *op : {keys.getOperation(), values.getOperation()})
      op->setAttr(kLayerAttrName, layer);
  scores.getKeyMutable().assign(keys);
  context.getValueMutable().assign(values);
  // The queries now see every cache slot; the mask hides those not reached.
  auto queryType = cast<RankedTensorType>(scores.getQuery().getType());
  auto scoresType = RankedTensorType::get(
      {queryType.getDimSize(0), queryType.getDimSize(1), queryType.getDimSize(2), capacity},
      queryType.getElementType());
  scores.getResult().setType(scoresType);
  if (auto alibi = dyn_cast_or_null<AlibiOp>(bias)) {
    alibi.getResult().setType(scoresType);
    alibi.getPositionMutable().assign(position);
  } else if (auto relative = dyn_cast_or_null<RelativePositionBiasOp>(bias)) {
    relative.getResult().setType(scoresType);
    relative.getPositionMutable().assign(position);
  }
  softmax.getResult().setType(scoresType);
  softmax.getPositionMutable().assign(position);
  softmax.getKeyMaskMutable().assign(cacheMask);
  updated.push_back({keys, keyCache->getArgNumber()});
  updated.push_back({values, valueCache->getArgNumber()});
  return success();
}

/// The logits the model's loss reads become `fn`'s result, the loss gone (a
/// model may return its loss twice: as the objective and as a metric).
/// Partitioned for tensor parallelism, the loss is the vocab-parallel one
/// over each rank's slice of the logits: they are all-gathered along the
/// vocabulary, whole on every rank.
FailureOr<Value> takeLogits(func::FuncOp fn, func::ReturnOp ret) {
  Value loss = ret.getNumOperands() >= 1 ? ret.getOperand(0) : Value();
  Value logits;
  if (auto whole = loss ? loss.getDefiningOp<CrossEntropyOp>() : CrossEntropyOp())
    logits = whole.getLogits();
  else if (auto fromStats =
               loss ? loss.getDefiningOp<CrossEntropyFromStatsOp>() : CrossEntropyFromStatsOp()) {
    auto reduced = fromStats.getSumExp().getDefiningOp<AllReduceOp>();
    auto stats =
        reduced ? reduced.getInput().getDefiningOp<VocabParallelStatsOp>() : VocabParallelStatsOp();
    auto mesh = reduced ? SymbolTable::lookupNearestSymbolFrom<MeshOp>(fn, reduced.getMeshAttr())
                        : MeshOp();
    std::optional<int64_t> ranks;
    if (stats && mesh && reduced.getAxes().size() == 1)
      ranks = mesh.getAxisSize(cast<StringAttr>(reduced.getAxes()[0]).getValue());
    if (ranks) {
      auto slice = cast<RankedTensorType>(stats.getLogits().getType());
      SmallVector<int64_t> shape(slice.getShape());
      shape.back() *= *ranks;
      OpBuilder b(ret);
      logits = AllGatherOp::create(
          b, ret.getLoc(), RankedTensorType::get(shape, slice.getElementType()), stats.getLogits(),
          reduced.getMeshAttr(), reduced.getAxes(), b.getI64IntegerAttr(slice.getRank() - 1));
    }
  }
  if (!logits || llvm::any_of(ret.getOperands(), [&](Value v) { return v != loss; }))
    return refuseForInference(ret)
           << "the model must return the mt.cross_entropy of its logits (or, partitioned, the "
              "vocab-parallel cross-entropy)";
  ret->setOperands(logits);
  eraseDeadOps(fn);
  return logits;
}

/// The prefill's language-model head reads only the hidden state of the
/// token a new argument `last_token` (one-hot over the chunk, [batch, seq,
/// 1]) picks: the logits become [batch, 1, vocab].
LogicalResult selectLastLogits(func::FuncOp fn, Value logits, BlockArgument tokens,
                               unsigned index) {
  // Under tensor parallelism the head computes this rank's slice of the
  // vocabulary, which an all-gather makes whole.
  auto gather = logits.getDefiningOp<AllGatherOp>();
  Value sliced = gather ? gather.getInput() : logits;
  Operation *head = sliced.getDefiningOp();
  OpOperand *hidden = nullptr;
  if (auto linear = dyn_cast_or_null<LinearOp>(head))
    hidden = &linear.getInputMutable();
  else if (auto matmul = dyn_cast_or_null<MatmulOp>(head); matmul && !matmul.getTransposeLhs())
    hidden = &matmul.getLhsMutable();
  auto hiddenType = hidden ? dyn_cast<RankedTensorType>(hidden->get().getType()) : nullptr;
  auto logitsType = cast<RankedTensorType>(logits.getType());
  if (!hiddenType || hiddenType.getRank() != 3 || logitsType.getRank() != 3)
    return refuseForInference(head ? head : fn.getOperation())
           << "to compute only the last token's logits, the logits must be an mt.linear (or "
              "mt.matmul) of [batch, seq, hidden] states; keep every token's (all-logits, "
              "mtc --all-prefill-logits)";
  MLIRContext *ctx = fn.getContext();
  SmallVector<NamedAttribute> attrs{
      NamedAttribute(StringAttr::get(ctx, kBatchAttrName), StringAttr::get(ctx, "last_token"))};
  // An encoder-decoder's prefill picks among the decoder's tokens.
  if (Attribute sequence = fn.getArgAttr(tokens.getArgNumber(), kSequenceAttrName))
    attrs.push_back(NamedAttribute(StringAttr::get(ctx, kSequenceAttrName), sequence));
  auto tokensType = cast<RankedTensorType>(tokens.getType());
  auto selectType = RankedTensorType::get({tokensType.getDimSize(0), tokensType.getDimSize(1), 1},
                                          Float32Type::get(ctx));
  if (failed(fn.insertArgument(index, selectType, DictionaryAttr::get(ctx, attrs), fn.getLoc())))
    return failure();
  OpBuilder b(head);
  auto picked = MatmulOp::create(
      b, head->getLoc(),
      RankedTensorType::get({hiddenType.getDimSize(0), 1, hiddenType.getDimSize(2)},
                            hiddenType.getElementType()),
      fn.getArgument(index), hidden->get(), /*transposeLhs=*/true);
  hidden->set(picked);
  for (Value v : {sliced, logits}) {
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(RankedTensorType::get({t.getDimSize(0), 1, t.getDimSize(2)}, t.getElementType()));
  }
  return success();
}

/// `model` as a function of a chunk of tokens at `position` that reads and
/// appends to a KV cache per attention site.
FailureOr<func::FuncOp> buildFunction(func::FuncOp model, int64_t capacity, int64_t encoderLength,
                                      bool decode, bool allLogits) {
  OpBuilder top(model);
  auto fn = cast<func::FuncOp>(top.clone(*model));
  fn.setSymName((model.getSymName() + (decode ? "_decode" : "_prefill")).str());
  setRole(fn, decode ? FunctionRole::decode : FunctionRole::prefill);
  turnDropoutOff(fn);
  MLIRContext *ctx = fn.getContext();
  Block &entry = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());

  FailureOr<Value> taken = takeLogits(fn, ret);
  if (failed(taken))
    return failure();
  Value logits = *taken;

  // An encoder-decoder generates with its decoder, from the encoder's
  // cross-attention keys and values.
  BlockArgument tokens = batchArgument(fn, "decoder_tokens");
  if (tokens && failed(readCrossAttentionCaches(fn, tokens, encoderLength)))
    return failure();
  if (!tokens)
    tokens = batchArgument(fn, "tokens");
  auto tokensType = tokens ? dyn_cast<RankedTensorType>(tokens.getType()) : RankedTensorType();
  if (!tokensType || tokensType.getRank() != 2) {
    refuseForInference(fn)
        << "the model needs a [batch, seq] argument marked mt.batch = \"tokens\"";
    return failure();
  }
  if (decode)
    tokens.setType(
        RankedTensorType::get({tokensType.getDimSize(0), 1}, tokensType.getElementType()));

  for (Operation &op : entry) {
    auto rotary = dyn_cast<RotaryOp>(op);
    auto relative = dyn_cast<RelativePositionBiasOp>(op);
    if ((rotary && rotary.getPosition()) || (relative && relative.getPosition())) {
      refuseForInference(&op) << "the model already counts from a run-time position";
      return failure();
    }
  }

  // The calls' tokens fill cache slots [position, position + n). A ragged
  // batch's rows are left-padded to end together: row r's tokens count
  // from row_position[r] (position less its padding), and cache_mask
  // [batch, capacity] hides its padding slots from every query.
  Type i64 = IntegerType::get(ctx, 64);
  auto batchAttr = [&](StringRef what) {
    return DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, kBatchAttrName), StringAttr::get(ctx, what))});
  };
  int64_t batch = tokensType.getDimSize(0);
  unsigned positionIndex = fn.getNumArguments();
  if (failed(fn.insertArgument(positionIndex, RankedTensorType::get({}, i64), batchAttr("position"),
                               fn.getLoc())) ||
      failed(fn.insertArgument(positionIndex + 1, RankedTensorType::get({batch}, i64),
                               batchAttr("row_position"), fn.getLoc())) ||
      failed(fn.insertArgument(positionIndex + 2,
                               RankedTensorType::get({batch, capacity}, IntegerType::get(ctx, 1)),
                               batchAttr("cache_mask"), fn.getLoc())))
    return failure();
  Value position = fn.getArgument(positionIndex);
  Value rowPosition = fn.getArgument(positionIndex + 1);
  Value cacheMask = fn.getArgument(positionIndex + 2);
  if (!decode && !allLogits && failed(selectLastLogits(fn, logits, tokens, positionIndex + 3)))
    return failure();
  // Absolute positions count per row: the position embedding (each row's
  // own rows of the table) and rotary embeddings. ALiBi's and T5's biases
  // are relative: the cache slot `position` serves them.
  fn.walk([&](PositionEmbeddingOp p) {
    p.getPositionMutable().assign(rowPosition);
    p.getResult().setType(cast<RankedTensorType>(p.inferResultTypes().front()));
  });
  fn.walk([&](RotaryOp r) { r.getPositionMutable().assign(rowPosition); });

  // Each attention site: keys and values go into its caches, and the
  // queries attend over everything the caches hold up to their position.
  SmallVector<AttentionScoresOp> sites;
  fn.walk([&](AttentionScoresOp s) {
    // A cross-attention site's keys are the encoder's: no cache to extend.
    if (!isa<BlockArgument>(s.getKey()) ||
        !fn.getArgAttr(cast<BlockArgument>(s.getKey()).getArgNumber(), kKvCacheAttrName))
      sites.push_back(s);
  });
  SmallVector<std::pair<Value, unsigned>> updated; // cache value, argument
  for (auto [n, scores] : llvm::enumerate(sites))
    if (failed(cacheSite(fn, scores, n, capacity, position, cacheMask, updated)))
      return failure();
  if (sites.empty()) {
    refuseForInference(fn) << "the model has no attention site to cache";
    return failure();
  }

  SmallVector<Value> results{logits};
  for (auto [value, arg] : updated)
    results.push_back(value);
  ret->setOperands(results);

  // What the loss and dropout needed is gone (and an encoder-decoder's
  // encoder). The caches come after every erased argument.
  FailureOr<unsigned> dropped = eraseUnusedInputs(fn, {tokens, position});
  if (failed(dropped))
    return failure();
  fn.setType(FunctionType::get(ctx, entry.getArgumentTypes(), ValueRange(results).getTypes()));
  fn.removeResAttrsAttr();
  for (auto [i, entry] : llvm::enumerate(updated))
    fn.setResultAttr(i + 1, kInPlaceOfAttrName,
                     IntegerAttr::get(IntegerType::get(ctx, 64), entry.second - *dropped));
  return fn;
}

struct BuildInferencePass : mt::impl::BuildInferencePassBase<BuildInferencePass> {
  using Base::Base;

  void runOnOperation() override {
    for (func::FuncOp model : modelFunctions(getOperation())) {
      if (model->hasAttr(kStageAttrName)) {
        model.emitError("mt-build-inference: run it on a whole model, not a pipeline stage");
        return signalPassFailure();
      }
      FailureOr<int64_t> size = capacityOf(model, capacity);
      if (failed(size))
        return signalPassFailure();
      if (batchArgument(model, "decoder_tokens")) {
        if (encoderLength < 1) {
          model.emitError("mt-build-inference: an encoder-decoder model needs its encoder's "
                          "sequence length: give encoder-length (mtc --seq-length)");
          return signalPassFailure();
        }
        if (failed(buildEncodeFunction(model)))
          return signalPassFailure();
      }
      if (failed(buildFunction(model, *size, encoderLength, /*decode=*/false, allLogits)) ||
          failed(buildFunction(model, *size, encoderLength, /*decode=*/true, allLogits)))
        return signalPassFailure();
      model.erase();
    }
  }
};

} // namespace
