//===- PadVocab.cpp - Megatron's --make-vocab-size-divisible-by ------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Sharding/MeshShape.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_PADVOCABPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

static RankedTensorType withDim(RankedTensorType t, unsigned dim, int64_t size) {
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
}

/// Whether the logits `head` makes feed only what ignores classes from
/// `num_classes` on: mt.cross_entropy and mt.accuracy (BERT's masked-LM
/// accuracy).
bool logitsPaddable(LinearOp head) {
  return llvm::all_of(head->getUsers(), [&](Operation *user) {
    if (auto loss = dyn_cast<CrossEntropyOp>(user))
      return loss.getLogits() == head.getResult();
    if (auto accuracy = dyn_cast<AccuracyOp>(user))
      return accuracy.getLogits() == head.getResult();
    return false;
  });
}

/// Whether `head`'s bias, if any, can grow with it: a parameter of its own.
bool biasPaddable(func::FuncOp func, LinearOp head) {
  auto bias = dyn_cast_or_null<BlockArgument>(head.getBias());
  return !head.getBias() || (bias && bias.getOwner() == &func.getBody().front() && bias.hasOneUse());
}

/// Pads the output of the vocabulary head `head` (whose weight just grew
/// to `padded` rows) and its own bias, and tells its readers the `vocab`
/// real classes.
LogicalResult padHead(func::FuncOp func, LinearOp head, int64_t vocab, int64_t padded) {
  auto bias = dyn_cast_or_null<BlockArgument>(head.getBias());
  if (!biasPaddable(func, head))
    return head->emitError() << "mt-pad-vocab: cannot pad the vocabulary through this head: "
                                "its bias must be absent or a parameter of its own";
  if (!logitsPaddable(head))
    return head->emitError() << "mt-pad-vocab: padded logits may only feed mt.cross_entropy "
                                "and mt.accuracy";
  if (bias) {
    // The head's own bias (BERT's) grows with it; the extra classes are
    // ignored by the loss, so their bias gets no gradient.
    bias.setType(withDim(cast<RankedTensorType>(bias.getType()), 0, padded));
    func.setArgAttr(bias.getArgNumber(), kUnpaddedRowsAttrName,
                    IntegerAttr::get(IntegerType::get(func.getContext(), 64), vocab));
  }
  auto logits = cast<RankedTensorType>(head.getType());
  head.getResult().setType(withDim(logits, logits.getRank() - 1, padded));
  for (Operation *user : head->getUsers()) {
    if (auto loss = dyn_cast<CrossEntropyOp>(user); loss && !loss.getNumClasses())
      loss.setNumClasses(vocab);
    if (auto accuracy = dyn_cast<AccuracyOp>(user); accuracy && !accuracy.getNumClasses())
      accuracy.setNumClasses(vocab);
  }
  return success();
}

/// Pads the table argument `arg` to `padded` rows and fixes every use. The
/// uses it knows: embedding lookups (unchanged results) and tied heads
/// (mt.linear) whose logits feed the loss and the accuracy.
LogicalResult padTable(func::FuncOp func, BlockArgument arg, int64_t vocab, int64_t padded) {
  arg.setType(withDim(cast<RankedTensorType>(arg.getType()), 0, padded));
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (isa<EmbeddingOp>(user))
      continue;
    auto head = dyn_cast<LinearOp>(user);
    if (!head || use.getOperandNumber() != 1)
      return user->emitError() << "mt-pad-vocab: cannot pad the vocabulary through this use "
                                  "of the embedding table; only lookups and tied heads are "
                                  "supported";
    if (failed(padHead(func, head, vocab, padded)))
      return failure();
  }
  return success();
}

/// Whether `arg` is an untied output layer of `vocab` rows: the weight of
/// heads (mt.linear, with no bias or one of their own) whose logits feed
/// only the loss and the accuracy. Others are left as they are.
bool isUntiedHead(func::FuncOp func, BlockArgument arg, int64_t vocab) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || type.getRank() != 2 || type.getDimSize(0) != vocab || arg.use_empty())
    return false;
  return llvm::all_of(arg.getUses(), [&](OpOperand &use) {
    auto head = dyn_cast<LinearOp>(use.getOwner());
    return head && use.getOperandNumber() == 1 && logitsPaddable(head) &&
           biasPaddable(func, head);
  });
}

struct PadVocabPass : mt::impl::PadVocabPassBase<PadVocabPass> {
  using PadVocabPassBase::PadVocabPassBase;

  void runOnOperation() override {
    if (multiple < 1) {
      getOperation().emitError() << "mt-pad-vocab: multiple must be >= 1, got "
                                 << static_cast<int64_t>(multiple);
      return signalPassFailure();
    }
    auto isTable = [](BlockArgument arg) {
      return llvm::any_of(arg.getUses(), [](OpOperand &use) {
        return isa<EmbeddingOp>(use.getOwner()) && use.getOperandNumber() == 0;
      });
    };
    for (func::FuncOp func : modelFunctions(getOperation())) {
      // The word embedding is the largest table (BERT's token-type table
      // is not a vocabulary).
      int64_t largest = 0;
      for (const ParamInfo &p : collectParams(func))
        if (p.type && isTable(func.getArgument(p.argNumber)))
          largest = std::max(largest, p.type.getDimSize(0));
      for (const ParamInfo &p : collectParams(func)) {
        BlockArgument arg = func.getArgument(p.argNumber);
        if (!p.type || !isTable(arg) || p.type.getDimSize(0) != largest)
          continue;
        int64_t vocab = p.type.getDimSize(0);
        int64_t padded = roundUpToMultiple(vocab, multiple);
        if (padded == vocab)
          continue;
        if (failed(padTable(func, arg, vocab, padded)))
          return signalPassFailure();
        // Checkpoints tell padding rows from real ones by it.
        func.setArgAttr(p.argNumber, kUnpaddedRowsAttrName,
                        IntegerAttr::get(IntegerType::get(&getContext(), 64), vocab));
        // An output layer of its own (Llama's lm_head) grows with the table.
        for (const ParamInfo &q : collectParams(func)) {
          BlockArgument head = func.getArgument(q.argNumber);
          if (!q.type || !isUntiedHead(func, head, vocab))
            continue;
          head.setType(withDim(q.type, 0, padded));
          for (OpOperand &use : llvm::make_early_inc_range(head.getUses()))
            if (failed(padHead(func, cast<LinearOp>(use.getOwner()), vocab, padded)))
              return signalPassFailure();
          func.setArgAttr(q.argNumber, kUnpaddedRowsAttrName,
                          IntegerAttr::get(IntegerType::get(&getContext(), 64), vocab));
        }
      }
      SmallVector<Type> inputs(func.getBody().getArgumentTypes());
      func.setType(FunctionType::get(&getContext(), inputs, func.getFunctionType().getResults()));
    }
  }
};

} // namespace
