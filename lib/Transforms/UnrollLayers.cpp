//===- UnrollLayers.cpp - one copy of the layer body per layer -------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mt {
#define GEN_PASS_DEF_UNROLLLAYERSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

LogicalResult unroll(LayerStackOp stack) {
  if (stack.getBody().front().getOperations().size() > 1) {
    WalkResult nested = stack.getBody().walk([](LayerStackOp) { return WalkResult::interrupt(); });
    if (nested.wasInterrupted())
      return stack.emitError("mt-unroll-layers: nested mt.layer_stack is not supported");
  }
  OpBuilder builder(stack);
  Block &body = stack.getBody().front();
  unsigned numCarried = stack.getCarried().size();
  SmallVector<Value> carried(stack.getCarried());
  // Dropout keys use the model-wide layer index (a pipeline stage's stack
  // starts at first_layer).
  int64_t firstLayer = stack.getFirstLayerAttr() ? stack.getFirstLayerAttr().getInt() : 0;
  for (int64_t layer = 0; layer < stack.getNumLayers(); ++layer) {
    IRMapping mapping;
    for (auto [arg, value] : llvm::zip(body.getArguments().take_front(numCarried), carried))
      mapping.map(arg, value);
    for (auto [arg, stacked] :
         llvm::zip(body.getArguments().drop_front(numCarried), stack.getStacked())) {
      auto slice = SliceLayerOp::create(builder, stack.getLoc(), arg.getType(), stacked,
                                        builder.getI64IntegerAttr(layer));
      mapping.map(arg, slice.getResult());
    }
    for (Operation &op : body.without_terminator()) {
      Operation *copy = builder.clone(op, mapping);
      copy->walk([&](DropoutKeyedOpInterface keyed) { keyed.setKeyLayer(firstLayer + layer); });
      // Recomputation and memory reports work layer by layer.
      copy->setAttr(kLayerAttrName, builder.getI64IntegerAttr(firstLayer + layer));
    }
    carried.clear();
    for (Value v : body.getTerminator()->getOperands())
      carried.push_back(mapping.lookupOrDefault(v));
  }
  stack.replaceAllUsesWith(carried);
  stack.erase();
  return success();
}

struct UnrollLayersPass : mt::impl::UnrollLayersPassBase<UnrollLayersPass> {
  void runOnOperation() override {
    SmallVector<LayerStackOp> stacks;
    getOperation().walk([&](LayerStackOp stack) { stacks.push_back(stack); });
    for (LayerStackOp stack : stacks)
      if (failed(unroll(stack)))
        return signalPassFailure();
  }
};

} // namespace
