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

/// Pads the table argument `arg` to `padded` rows and fixes every use. The
/// uses it knows: embedding lookups (unchanged results) and tied heads
/// (mt.linear) whose logits feed mt.cross_entropy.
LogicalResult padTable(func::FuncOp func, BlockArgument arg, int64_t vocab, int64_t padded) {
  arg.setType(withDim(cast<RankedTensorType>(arg.getType()), 0, padded));
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (isa<EmbeddingOp>(user))
      continue;
    auto head = dyn_cast<LinearOp>(user);
    auto bias = head ? dyn_cast_or_null<BlockArgument>(head.getBias()) : BlockArgument();
    bool paddableBias = !head || !head.getBias() ||
                        (bias && bias.getOwner() == &func.getBody().front() && bias.hasOneUse());
    if (!head || use.getOperandNumber() != 1 || !paddableBias)
      return user->emitError() << "mt-pad-vocab: cannot pad the vocabulary through this use "
                                  "of the embedding table; only lookups and tied heads (with "
                                  "no bias or a parameter bias of their own) are supported";
    if (bias) {
      // The head's own bias (BERT's) grows with it; the extra classes are
      // ignored by the loss, so their bias gets no gradient.
      bias.setType(withDim(cast<RankedTensorType>(bias.getType()), 0, padded));
      func.setArgAttr(bias.getArgNumber(), kUnpaddedRowsAttrName,
                      IntegerAttr::get(IntegerType::get(func.getContext(), 64), vocab));
    }
    auto logits = cast<RankedTensorType>(head.getType());
    head.getResult().setType(withDim(logits, logits.getRank() - 1, padded));
    for (Operation *logitsUser : head->getUsers()) {
      auto loss = dyn_cast<CrossEntropyOp>(logitsUser);
      if (!loss || loss.getLogits() != head.getResult())
        return logitsUser->emitError()
               << "mt-pad-vocab: padded logits may only feed mt.cross_entropy";
      if (!loss.getNumClasses())
        loss.setNumClasses(vocab);
    }
  }
  return success();
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
      }
      SmallVector<Type> inputs(func.getBody().getArgumentTypes());
      func.setType(FunctionType::get(&getContext(), inputs, func.getFunctionType().getResults()));
    }
  }
};

} // namespace
