//===- Pipelines.cpp - the pass pipelines mtc runs -------------------------===//
#include "mt/Pipelines/Pipelines.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mt::buildFrontendPipeline(OpPassManager &pm, const FrontendOptions &options) {
  pm.addPass(createVerifyModelPass());
  if (options.makeVocabSizeDivisibleBy > 1)
    pm.addPass(createPadVocabPass(PadVocabPassOptions{options.makeVocabSizeDivisibleBy}));
  pm.addPass(createSpecializeShapesPass(
      SpecializeShapesPassOptions{options.microBatchSize, options.seqLength}));
}

void mt::registerPipelines() {
  PassPipelineRegistration<FrontendOptions>(
      "mt-frontend", "check the model and bring it to canonical form (mtc's first stage)",
      buildFrontendPipeline);
}
