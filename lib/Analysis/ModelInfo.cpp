//===- ModelInfo.cpp - what a model function declares ----------------------===//
#include "mt/Analysis/ModelInfo.h"

using namespace mlir;

namespace mt {

bool isModelFunction(func::FuncOp func) {
  if (func->hasAttr(kGradientOfAttrName))
    return false;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kParamAttrName))
      return true;
  return false;
}

std::vector<ParamInfo> collectParams(func::FuncOp func) {
  std::vector<ParamInfo> params;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto attr = func.getArgAttrOfType<ParamAttr>(i, kParamAttrName);
    if (!attr)
      continue;
    ParamInfo p;
    p.name = attr.getName().str();
    p.type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
    p.attr = attr;
    p.argNumber = i;
    for (OpOperand &use : func.getArgument(i).getUses()) {
      if (auto stack = dyn_cast<LayerStackOp>(use.getOwner()))
        if (use.getOperandNumber() >= stack.getCarried().size())
          p.stackedLayers = stack.getNumLayers();
      if (isa<SliceLayerOp>(use.getOwner())) // an unrolled stack
        p.stackedLayers = p.type.getDimSize(0);
    }
    params.push_back(p);
  }
  return params;
}

bool hasDecoderInputs(ModuleOp module) {
  for (func::FuncOp model : modelFunctions(module))
    for (unsigned i = 0; i < model.getNumArguments(); ++i)
      if (model.getArgAttr(i, kSequenceAttrName))
        return true;
  return false;
}

std::vector<func::FuncOp> modelFunctions(ModuleOp module) {
  std::vector<func::FuncOp> out;
  for (auto func : module.getOps<func::FuncOp>())
    if (isModelFunction(func))
      out.push_back(func);
  return out;
}

} // namespace mt
