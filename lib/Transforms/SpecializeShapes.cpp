//===- SpecializeShapes.cpp - fix batch and sequence sizes -----------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

namespace mt {
#define GEN_PASS_DEF_SPECIALIZESHAPESPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// `inferred` with the static sizes of `declared` kept; fails when two static
/// sizes disagree.
FailureOr<Type> refine(Type declared, Type inferred) {
  auto d = dyn_cast<RankedTensorType>(declared), i = dyn_cast<RankedTensorType>(inferred);
  if (!d || !i || d.getRank() != i.getRank())
    return failure();
  SmallVector<int64_t> shape;
  for (auto [a, b] : llvm::zip(d.getShape(), i.getShape())) {
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return failure();
    shape.push_back(ShapedType::isDynamic(b) ? a : b);
  }
  return Type(RankedTensorType::get(shape, d.getElementType(), d.getEncoding()));
}

LogicalResult setResultTypes(Operation *op, ArrayRef<Type> inferred) {
  if (inferred.size() != op->getNumResults())
    return op->emitError("mt-specialize-shapes: shape rule gave the wrong number of results");
  for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
    FailureOr<Type> refined = refine(result.getType(), type);
    if (failed(refined))
      return op->emitError() << "mt-specialize-shapes: the chosen sizes make this result " << type
                             << ", which contradicts its declared type " << result.getType();
    result.setType(*refined);
  }
  return success();
}

LogicalResult specializeBlock(Block &block);

LogicalResult specializeLayerStack(LayerStackOp stack) {
  Block &body = stack.getBody().front();
  unsigned numCarried = stack.getCarried().size();
  for (auto [arg, value] :
       llvm::zip(body.getArguments().take_front(numCarried), stack.getCarried()))
    arg.setType(value.getType());
  if (failed(specializeBlock(body)))
    return failure();
  return setResultTypes(stack, SmallVector<Type>(body.getTerminator()->getOperandTypes()));
}

LogicalResult specializeBlock(Block &block) {
  for (Operation &op : block) {
    if (auto stack = dyn_cast<LayerStackOp>(op)) {
      if (failed(specializeLayerStack(stack)))
        return failure();
    } else if (auto shaped = dyn_cast<ShapeInferenceOpInterface>(op)) {
      if (failed(setResultTypes(&op, shaped.inferResultTypes())))
        return failure();
    }
  }
  return success();
}

bool hasDynamicShape(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && !r.hasStaticShape();
}

struct SpecializeShapesPass : mt::impl::SpecializeShapesPassBase<SpecializeShapesPass> {
  using SpecializeShapesPassBase::SpecializeShapesPassBase;

  LogicalResult specialize(func::FuncOp func) {
    if (microBatchSize < 1 || seqLength < 0 || decoderSeqLength < 0)
      return func.emitError() << "mt-specialize-shapes: micro-batch-size must be >= 1 and "
                                 "seq-length and decoder-seq-length >= 0, got "
                              << microBatchSize << ", " << seqLength << " and " << decoderSeqLength;
    // Default sequence length: the longest the position table allows.
    int64_t seq = seqLength;
    if (seq == 0)
      func.walk([&](PositionEmbeddingOp op) {
        seq = std::max(seq, cast<RankedTensorType>(op.getTable().getType()).getDimSize(0));
      });
    Block &entry = func.getBody().front();
    bool hasDecoder = llvm::any_of(entry.getArguments(), [&](BlockArgument a) {
      return static_cast<bool>(func.getArgAttr(a.getArgNumber(), kSequenceAttrName));
    });
    // (An encoder-decoder's encode function for inference has the encoder only.)
    if (decoderSeqLength > 0 && !hasDecoder && roleOf(func) != FunctionRole::encode)
      return func.emitError("mt-specialize-shapes: decoder-seq-length is for encoder-decoder "
                            "models (batch arguments marked mt.sequence = \"decoder\"); @")
             << func.getSymName() << " has one sequence: give --seq-length only";
    for (BlockArgument arg : entry.getArguments()) {
      if (func.getArgAttr(arg.getArgNumber(), kParamAttrName))
        continue;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      SmallVector<int64_t> shape(type.getShape());
      auto sequence = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kSequenceAttrName);
      bool decoder = sequence && sequence.getValue() == "decoder";
      const int64_t chosen[] = {microBatchSize, decoder ? decoderSeqLength : seq};
      for (unsigned d = 0; d < shape.size() && d < 2; ++d) {
        if (!ShapedType::isDynamic(shape[d]))
          continue;
        if (chosen[d] == 0 && decoder)
          return func.emitError("mt-specialize-shapes: an encoder-decoder model needs the "
                                "decoder's sequence length: give --decoder-seq-length");
        if (chosen[d] == 0)
          return func.emitError("mt-specialize-shapes: the model has no position table to "
                                "take its sequence length from: give --seq-length");
        shape[d] = chosen[d];
      }
      arg.setType(RankedTensorType::get(shape, type.getElementType(), type.getEncoding()));
    }
    if (failed(specializeBlock(entry)))
      return failure();
    Operation *terminator = entry.getTerminator();
    WalkResult dynamic = func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (hasDynamicShape(t)) {
          op->emitError() << "mt-specialize-shapes: size left open after specialization: " << t;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return failure();
    func.setType(
        FunctionType::get(&getContext(), entry.getArgumentTypes(), terminator->getOperandTypes()));
    return success();
  }

  void runOnOperation() override {
    for (func::FuncOp func : modelFunctions(getOperation()))
      if (failed(specialize(func)))
        return signalPassFailure();
  }
};

} // namespace
