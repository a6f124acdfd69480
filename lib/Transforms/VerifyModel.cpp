//===- VerifyModel.cpp - model-level rules no single op can see ------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <set>

namespace mt {
#define GEN_PASS_DEF_VERIFYMODELPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// M4: within one block's ops (not nested layer bodies, whose layer index
/// already tells them apart from the outside), each dropout stream is unique.
LogicalResult verifyDropoutStreams(Region &region) {
  // Keyed by (stream, layer): unrolled layers share a body but not a layer.
  llvm::DenseMap<std::pair<int64_t, int64_t>, DropoutOp> seen;
  for (Operation &op : region.getOps()) {
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      int64_t layer = dropout.getLayerAttr() ? dropout.getLayerAttr().getInt() : -1;
      auto [it, inserted] =
          seen.try_emplace(std::make_pair(dropout.getStreamAttr().getInt(), layer), dropout);
      if (!inserted) {
        auto diag = dropout.emitError()
                    << "model violates M4: dropout stream " << dropout.getStreamAttr().getInt()
                    << " is used twice in one body, so both sites would draw the same mask";
        diag.attachNote(it->second.getLoc()) << "first use here";
        return diag;
      }
    }
    for (Region &nested : op.getRegions())
      if (failed(verifyDropoutStreams(nested)))
        return failure();
  }
  return success();
}

LogicalResult verifyModel(func::FuncOp func) {
  llvm::StringMap<unsigned> names;
  for (const ParamInfo &p : collectParams(func)) {
    Location loc = func.getArgument(p.argNumber).getLoc();
    auto [it, inserted] = names.try_emplace(p.name, p.argNumber);
    if (!inserted)
      return emitError(loc) << "model violates M1: parameter name '" << p.name
                            << "' is used by arguments " << it->second << " and " << p.argNumber;
    if (!p.type || !p.type.hasStaticShape() || !isSupportedFloatType(p.type.getElementType()))
      return emitError(loc) << "model violates M2: parameter '" << p.name
                            << "' must be a statically shaped floating-point tensor, got "
                            << func.getArgument(p.argNumber).getType();
  }
  auto results = func.getFunctionType().getResults();
  auto scalar = [](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.getRank() == 0 && (r.getElementType().isF32() || r.getElementType().isF64());
  };
  if (results.empty() || !scalar(results[0]) || func.getResultAttr(0, kMetricAttrName))
    return func.emitError() << "model violates M3: a model function returns its loss first, a "
                               "tensor<f32> (or tensor<f64>); got ("
                            << results << ")";
  std::set<std::string> metrics;
  for (unsigned i = 1; i < results.size(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, kMetricAttrName);
    if (!scalar(results[i]) || !name || name.getValue().empty())
      return func.emitError() << "model violates M5: result " << i
                              << " after the loss must be a "
                                 "tensor<f32> (or tensor<f64>) named by {mt.metric = \"...\"}; got "
                              << results[i];
    if (!metrics.insert(name.getValue().str()).second)
      return func.emitError() << "model violates M5: two results are named metric '"
                              << name.getValue() << "'";
  }
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Attribute sequence = func.getArgAttr(i, kSequenceAttrName);
    auto name = dyn_cast_or_null<StringAttr>(sequence);
    if (sequence && (!name || name.getValue() != "decoder" || func.getArgAttr(i, kParamAttrName) ||
                     cast<ShapedType>(func.getArgument(i).getType()).getRank() < 2))
      return emitError(func.getArgument(i).getLoc())
             << "model violates M6: " << kSequenceAttrName
             << " marks a [batch, seq, ...] batch argument whose sequence is the decoder's, as "
                "\"decoder\"; argument "
             << i << " has " << sequence << " on " << func.getArgument(i).getType();
  }
  return verifyDropoutStreams(func.getBody());
}

struct VerifyModelPass : mt::impl::VerifyModelPassBase<VerifyModelPass> {
  void runOnOperation() override {
    for (func::FuncOp func : modelFunctions(getOperation()))
      if (failed(verifyModel(func)))
        return signalPassFailure();
  }
};

} // namespace
