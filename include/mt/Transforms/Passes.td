//===- Passes.td - passes over the mt dialect ------------------------------===//
#ifndef MT_TRANSFORMS_PASSES_TD
#define MT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes, by role.
include "mt/Transforms/ModelPasses.td"
include "mt/Transforms/FusionPasses.td"
include "mt/Transforms/ParallelismPasses.td"
include "mt/Transforms/TrainingStepPasses.td"

#endif // MT_TRANSFORMS_PASSES_TD
