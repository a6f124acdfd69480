//===- CastActivations.cpp - 16-bit activations, fp32 parameters and loss -===//
//
// The precision policy is the ops' own: those with the RunsIn16Bits trait
// and every pointwise op store 16-bit activations; everything else stays
// fp32, and every change of type is an mt.convert later passes see:
// its gradient is a convert back, so parameter gradients arrive in fp32.
//
//===----------------------------------------------------------------------===//
#include "mt/Transforms/Passes.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_CASTACTIVATIONSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Ops that carry activations and compute in fp32 inside their kernels:
/// 16-bit storage loses nothing the fp32 model would keep beyond rounding.
/// The loss (cross-entropy and its vocab-parallel pieces) stays fp32, as in
/// Megatron; collectives and sends stay fp32 so every rank sums and moves
/// what the fp32 plan would. Embeddings gather from the fp32 table and
/// their rows are rounded after (the same values, without converting the
/// whole table), and their gradients scatter-add in fp32.
bool runsIn16Bits(Operation *op) {
  return op->hasTrait<RunsIn16Bits>() || isa<PointwiseOpInterface>(op);
}

RankedTensorType floatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType()) ? tensor : RankedTensorType();
}

/// tp-comm-16bit: a tensor-parallel collective of a 16-bit activation
/// moves it as it is (Megatron). A collective of fp32 values (the loss's
/// statistics, an embedding's rows before rounding) stays fp32.
bool collectiveOf16Bits(Operation *op, Type half) {
  if (!isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op) || op->getNumOperands() != 1)
    return false;
  auto t = floatTensor(op->getOperand(0).getType());
  return t && t.getElementType() == half;
}

struct CastActivationsPass : mt::impl::CastActivationsPassBase<CastActivationsPass> {
  using Base::Base;

  void runOnOperation() override {
    Builder types(&getContext());
    Type half = elementType == ActivationType::BF16  ? Type(types.getBF16Type())
                : elementType == ActivationType::F16 ? Type(types.getF16Type())
                                                     : Type();
    if (!half) {
      getOperation().emitError() << "mt-cast-activations: element-type must be bf16 or f16, got '"
                                 << nameOf(elementType.getValue()) << "'";
      return signalPassFailure();
    }
    Type f32 = types.getF32Type();
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (failed(cast(fn, half, f32)))
        return signalPassFailure();
      if (scaleLoss && fn.getNumResults() >= 1 && floatTensor(fn.getResultTypes()[0]) &&
          floatTensor(fn.getResultTypes()[0]).getRank() == 0) {
        Builder b(fn.getContext());
        unsigned index = fn.getNumArguments();
        (void)fn.insertArgument(index, RankedTensorType::get({}, f32),
                                b.getDictionaryAttr(b.getNamedAttr(
                                    kBatchAttrName, b.getStringAttr(kLossScaleBatchName))),
                                fn.getLoc());
      }
    }
  }

  LogicalResult cast(func::FuncOp fn, Type half, Type f32) {
    for (BlockArgument arg : fn.getArguments())
      if (auto t = floatTensor(arg.getType()); t && t.getElementType() != f32)
        return fn.emitError() << "mt-cast-activations: the model must be written in f32 (its "
                                 "parameters are the fp32 main copy), but argument "
                              << arg.getArgNumber() << " is " << t;
    WalkResult nested = fn.walk([&](Operation *op) {
      if (op != fn && op->getNumRegions()) {
        op->emitError("mt-cast-activations: run it after mt-unroll-layers (an op with regions "
                      "is left)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (nested.wasInterrupted())
      return failure();
    OpBuilder b(fn.getContext());
    auto convert = [&](Operation *user, OpOperand &operand, Type element) {
      auto t = floatTensor(operand.get().getType());
      b.setInsertionPoint(user);
      auto c = ConvertOp::create(b, user->getLoc(), t.clone(element), operand.get());
      if (Attribute layer = user->getAttr(kLayerAttrName))
        c->setAttr(kLayerAttrName, layer);
      operand.set(c.getResult());
    };
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front())) {
      if (isa<ConvertOp>(op))
        continue;
      bool in16 = runsIn16Bits(&op) || (tpComm16Bit && collectiveOf16Bits(&op, half));
      Type want = in16 ? half : f32;
      for (OpOperand &operand : op.getOpOperands()) {
        auto t = floatTensor(operand.get().getType());
        if (t && t.getElementType() != want)
          convert(&op, operand, want);
      }
      if (in16)
        for (OpResult result : op.getResults())
          if (auto t = floatTensor(result.getType()))
            result.setType(t.clone(half));
    }
    return success();
  }
};

} // namespace
