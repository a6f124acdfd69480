//===- FusionPatterns.cpp - what the fusion passes share -------------------===//
#include "mt/Transforms/FusionPatterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace mt {

LogicalResult applyFusionPatterns(Operation *root, const FrozenRewritePatternSet &patterns) {
  // Program order decides which of two candidates fuses (an add read by two
  // norms fuses into the first), as the passes did before patterns.
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(true)
      .enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return applyPatternsGreedily(root, patterns, config);
}

void carryAttributes(Operation *from, Operation *to) {
  for (NamedAttribute a : from->getDiscardableAttrs())
    to->setAttr(a.getName(), a.getValue());
}

} // namespace mt
