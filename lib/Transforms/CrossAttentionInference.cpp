//===- CrossAttentionInference.cpp - an encoder-decoder's inference --------===//
//
// The encoder of an encoder-decoder model (T5) runs once per input: its
// output enters the decoder only through the keys and values of the
// cross-attention sites, so those are what the encode function returns and
// what the decoder's prefill and decode read, as caches filled once.
//
//===----------------------------------------------------------------------===//
#include "InferenceSites.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/DropoutOff.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace mt {

BlockArgument batchArgument(func::FuncOp fn, StringRef what) {
  for (BlockArgument arg : fn.getArguments())
    if (auto b = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kBatchAttrName))
      if (b.getValue() == what)
        return arg;
  return {};
}

InFlightDiagnostic refuseForInference(Operation *op) {
  return op->emitError("mt-build-inference: ");
}

/// The mt.attention_context of cross-attention site `scores`, or null
/// having said why.
static AttentionContextOp crossContextOf(AttentionScoresOp scores) {
  AttentionContextOp context = contextOf(scores);
  if (!context)
    refuseForInference(scores) << "a cross-attention site must be mt.attention_scores -> "
                                  "mt.softmax -> mt.attention_context, each used once";
  return context;
}

void eraseDeadOps(func::FuncOp fn) {
  // Users come after what they read: in reverse, each op's users are gone
  // before it is looked at.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(fn.getBody().front())))
    // A collective nothing reads is dead too: every rank runs the same
    // function, so every rank drops it (a vocab-parallel loss's all-reduces).
    if (isOpTriviallyDead(&op) ||
        (isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op) && op.use_empty()))
      op.erase();
}

SmallVector<AttentionScoresOp> crossAttentionSites(func::FuncOp fn, Value decoderTokens) {
  SetVector<Operation *> decoder;
  getForwardSlice(decoderTokens, &decoder);
  auto fromDecoder = [&](Value v) {
    return v == decoderTokens || (v.getDefiningOp() && decoder.contains(v.getDefiningOp()));
  };
  SmallVector<AttentionScoresOp> sites;
  fn.walk([&](AttentionScoresOp s) {
    if (fromDecoder(s.getQuery()) && !fromDecoder(s.getKey()))
      sites.push_back(s);
  });
  return sites;
}

AttentionContextOp contextOf(AttentionScoresOp scores) {
  Operation *next = scores->hasOneUse() ? *scores->user_begin() : nullptr;
  if (isa_and_nonnull<AlibiOp, RelativePositionBiasOp>(next))
    next = next->hasOneUse() ? *next->user_begin() : nullptr;
  auto softmax = dyn_cast_or_null<SoftmaxOp>(next);
  return softmax && softmax->hasOneUse() ? dyn_cast<AttentionContextOp>(*softmax->user_begin())
                                         : AttentionContextOp();
}

namespace {} // namespace

FailureOr<unsigned> eraseUnusedInputs(func::FuncOp fn, ArrayRef<Value> keep) {
  llvm::BitVector unused(fn.getNumArguments());
  for (BlockArgument arg : fn.getArguments())
    if (arg.use_empty() && !llvm::is_contained(keep, Value(arg)) &&
        (fn.getArgAttr(arg.getArgNumber(), kBatchAttrName) ||
         fn.getArgAttr(arg.getArgNumber(), kParamAttrName)))
      unused.set(arg.getArgNumber());
  if (failed(fn.eraseArguments(unused)))
    return failure();
  return unused.count();
}

namespace {

DictionaryAttr cacheAttrs(MLIRContext *ctx, StringRef name) {
  return DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kKvCacheAttrName), StringAttr::get(ctx, name))});
}

} // namespace

FailureOr<func::FuncOp> buildEncodeFunction(func::FuncOp model) {
  OpBuilder top(model);
  auto fn = cast<func::FuncOp>(top.clone(*model));
  fn.setSymName((model.getSymName() + "_encode").str());
  setRole(fn, FunctionRole::encode);
  turnDropoutOff(fn);
  MLIRContext *ctx = fn.getContext();
  SmallVector<AttentionScoresOp> sites =
      crossAttentionSites(fn, batchArgument(fn, "decoder_tokens"));
  if (sites.empty()) {
    refuseForInference(fn) << "an encoder-decoder model needs cross-attention: an "
                              "mt.attention_scores whose keys come from the encoder";
    return failure();
  }
  SmallVector<Value> results;
  for (AttentionScoresOp scores : sites) {
    AttentionContextOp context = crossContextOf(scores);
    if (!context)
      return failure();
    results.push_back(scores.getKey());
    results.push_back(context.getValue());
  }
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  ret->setOperands(results);
  eraseDeadOps(fn);
  if (failed(eraseUnusedInputs(fn, {})))
    return failure();
  fn.setType(FunctionType::get(ctx, fn.getBody().front().getArgumentTypes(),
                               ValueRange(results).getTypes()));
  fn.removeResAttrsAttr();
  for (size_t n = 0; n < sites.size(); ++n) {
    fn.setResultAttrs(2 * n, cacheAttrs(ctx, "ck." + std::to_string(n)));
    fn.setResultAttrs(2 * n + 1, cacheAttrs(ctx, "cv." + std::to_string(n)));
  }
  return fn;
}

LogicalResult readCrossAttentionCaches(func::FuncOp fn, Value decoderTokens,
                                       int64_t encoderLength) {
  MLIRContext *ctx = fn.getContext();
  SmallVector<AttentionScoresOp> sites = crossAttentionSites(fn, decoderTokens);
  for (auto [n, scores] : llvm::enumerate(sites)) {
    AttentionContextOp context = crossContextOf(scores);
    if (!context)
      return failure();
    auto cacheArg = [&](Value of, StringRef kind) {
      auto t = cast<RankedTensorType>(of.getType());
      auto type = RankedTensorType::get(
          {t.getDimSize(0), t.getDimSize(1), encoderLength, t.getDimSize(3)}, t.getElementType());
      unsigned index = fn.getNumArguments();
      (void)fn.insertArgument(index, type, cacheAttrs(ctx, (kind + "." + Twine(n)).str()),
                              of.getLoc());
      return fn.getArgument(index);
    };
    scores.getKeyMutable().assign(cacheArg(scores.getKey(), "ck"));
    context.getValueMutable().assign(cacheArg(context.getValue(), "cv"));
  }
  eraseDeadOps(fn);
  return success();
}

} // namespace mt
