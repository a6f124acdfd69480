//===- FuseBiasDropoutAdd.cpp - bias, dropout and residual in one op -------===//
#include "mt/Transforms/Passes.h"

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_FUSEBIASDROPOUTADDPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

bool isRank1(Value v) { return cast<RankedTensorType>(v.getType()).getRank() == 1; }

/// residual + dropout(input + bias), as found in the graph. Ops, not
/// values: an earlier rewrite may replace the residual (the previous
/// sublayer's sum).
struct Match {
  DropoutOp dropout;
  AddOp residualAdd;
  Operation *biasOp; // the biased linear or the bias add
};

Value residualOf(Match m) {
  Value d = m.dropout.getResult();
  return m.residualAdd.getLhs() == d ? m.residualAdd.getRhs() : m.residualAdd.getLhs();
}

std::optional<Match> match(DropoutOp d) {
  if (!d->hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<AddOp>(*d->getUsers().begin());
  if (!add)
    return std::nullopt;
  Value residual = add.getLhs() == d.getResult() ? add.getRhs() : add.getLhs();
  if (residual == d.getResult() || residual.getType() != d.getType())
    return std::nullopt;
  Operation *def = d.getInput().getDefiningOp();
  if (!def || !def->hasOneUse())
    return std::nullopt;
  if (auto linear = dyn_cast<LinearOp>(def); linear && linear.getBias() && isRank1(linear.getBias()))
    return Match{d, add, def};
  if (auto biasAdd = dyn_cast<AddOp>(def);
      biasAdd && isRank1(biasAdd.getRhs()) && biasAdd.getLhs().getType() == d.getType())
    return Match{d, add, def};
  return std::nullopt;
}

struct FuseBiasDropoutAddPass : mt::impl::FuseBiasDropoutAddPassBase<FuseBiasDropoutAddPass> {
  void runOnOperation() override {
    SmallVector<Match> matches;
    getOperation().walk([&](DropoutOp d) {
      if (auto m = match(d))
        matches.push_back(*m);
    });
    for (Match &m : matches) {
      OpBuilder b(m.biasOp);
      Value input, bias;
      if (auto linear = dyn_cast<LinearOp>(m.biasOp)) {
        bias = linear.getBias();
        auto plain = LinearOp::create(b, linear.getLoc(), linear.getType(), linear.getInput(),
                                        linear.getWeight(), Value());
        for (NamedAttribute a : linear->getDiscardableAttrs())
          plain->setAttr(a.getName(), a.getValue());
        input = plain.getResult();
      } else {
        input = cast<AddOp>(m.biasOp).getLhs();
        bias = cast<AddOp>(m.biasOp).getRhs();
      }
      b.setInsertionPoint(m.residualAdd);
      DropoutOp d = m.dropout;
      auto fused = BiasDropoutAddOp::create(b, 
          m.residualAdd.getLoc(), m.residualAdd.getType(), input, bias, residualOf(m), d.getSeed(),
          d.getShard(), d.getRateAttr(), d.getStreamAttr(), d.getLayerAttr(), d.getShardDimAttr(),
          d.getShardPartsAttr());
      for (NamedAttribute a : m.residualAdd->getDiscardableAttrs())
        fused->setAttr(a.getName(), a.getValue());
      m.residualAdd.replaceAllUsesWith(fused.getResult());
      m.residualAdd.erase();
      d.erase();
      m.biasOp->erase();
    }
  }
};

} // namespace
