//===- FrontendPipeline.cpp - the model's own checks and shapes ------------===//
//
// Apart from the other pipelines so that what needs only the frontend (the
// mt dialect's fuzzer) links the model passes, not the lowerings.
//
//===----------------------------------------------------------------------===//
#include "mt/Pipelines/Pipelines.h"
#include "mt/Transforms/Passes.h"

using namespace mlir;

void mt::buildFrontendPipeline(OpPassManager &pm, const FrontendOptions &options) {
  pm.addPass(createVerifyModelPass());
  if (options.makeVocabSizeDivisibleBy > 1)
    pm.addPass(createPadVocabPass(PadVocabPassOptions{options.makeVocabSizeDivisibleBy}));
  pm.addPass(createSpecializeShapesPass(SpecializeShapesPassOptions{
      options.microBatchSize, options.seqLength, options.decoderSeqLength}));
}
