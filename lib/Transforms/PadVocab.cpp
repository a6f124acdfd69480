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
    if (!head || use.getOperandNumber() != 1 || head.getBias())
      return user->emitError() << "mt-pad-vocab: cannot pad the vocabulary through this use "
                                  "of the embedding table; only lookups and bias-free tied "
                                  "heads are supported";
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
    for (func::FuncOp func : modelFunctions(getOperation())) {
      for (const ParamInfo &p : collectParams(func)) {
        BlockArgument arg = func.getArgument(p.argNumber);
        bool isTable = llvm::any_of(arg.getUses(), [](OpOperand &use) {
          return isa<EmbeddingOp>(use.getOwner()) && use.getOperandNumber() == 0;
        });
        if (!isTable || !p.type)
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
      func.setType(FunctionType::get(&getContext(), inputs,
                                     func.getFunctionType().getResults()));
    }
  }
};

} // namespace
