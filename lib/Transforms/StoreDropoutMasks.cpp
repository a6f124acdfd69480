//===- StoreDropoutMasks.cpp - keep dropout masks for the backward ---------===//
//
// mt.dropout draws its mask from a counter-based hash, so the backward pass
// can draw it again and nothing needs to be kept. Megatron instead keeps a
// one-byte mask per element. This pass produces that setting: each dropout
// becomes `mt.dropout_mask` (the same key, so the same mask) and
// `mt.masked_scale`, whose gradient reads the mask. Results do not change;
// the activations saved for the backward do.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

namespace mt {
#define GEN_PASS_DEF_STOREDROPOUTMASKSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

struct StoreDropoutMasksPass : mt::impl::StoreDropoutMasksPassBase<StoreDropoutMasksPass> {
  void runOnOperation() override {
    SmallVector<DropoutOp> dropouts;
    getOperation().walk([&](DropoutOp d) {
      if (d.getRate().convertToDouble() > 0.0)
        dropouts.push_back(d);
    });
    for (DropoutOp d : dropouts) {
      OpBuilder b(d);
      auto input = cast<RankedTensorType>(d.getInput().getType());
      auto maskType = RankedTensorType::get(input.getShape(), b.getI1Type());
      auto mask = DropoutMaskOp::create(b, d.getLoc(), maskType, d.getSeed(), d.getShard(),
                                        d.getRateAttr(), d.getStreamAttr(), d.getLayerAttr(),
                                        d.getShardDimAttr(), d.getShardPartsAttr());
      double scale = 1.0 / (1.0 - d.getRate().convertToDouble());
      auto apply =
          MaskedScaleOp::create(b, d.getLoc(), input, d.getInput(), mask, b.getF64FloatAttr(scale));
      if (auto layer = d->getAttr(kLayerAttrName)) {
        mask->setAttr(kLayerAttrName, layer);
        apply->setAttr(kLayerAttrName, layer);
      }
      d.getResult().replaceAllUsesWith(apply.getResult());
      d.erase();
    }
  }
};

} // namespace
