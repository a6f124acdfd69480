//===- BuildEvaluation.cpp - the forward loss with dropout off -------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/DropoutOff.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_BUILDEVALUATIONPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

struct BuildEvaluationPass : mt::impl::BuildEvaluationPassBase<BuildEvaluationPass> {
  void runOnOperation() override {
    for (func::FuncOp model : modelFunctions(getOperation())) {
      OpBuilder b(model);
      b.setInsertionPointAfter(model);
      auto eval = cast<func::FuncOp>(b.clone(*model));
      eval.setSymName((model.getSymName() + "_eval").str());
      setRole(eval, FunctionRole::eval);
      eval->setAttr(kModelAttrName, FlatSymbolRefAttr::get(model.getSymNameAttr()));
      // Not a model function any more: it is derived from one.
      eval->setAttr(kGradientOfAttrName, FlatSymbolRefAttr::get(model.getSymNameAttr()));
      turnDropoutOff(eval);
    }
  }
};

} // namespace
