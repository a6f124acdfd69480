//===- LayoutProbe.cpp - the compiler's figures for the layout search -------===//
#include "mt/Driver/LayoutProbe.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Driver/MemoryReport.h"
#include "mt/Driver/OpRecorder.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Plan/ParallelReport.h"
#include "mt/Plan/PlanEnums.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace mt {

namespace {

constexpr int64_t kProbeLayers = 5, kProbeStages = 4;

int64_t countStacks(func::FuncOp fn) {
  int64_t n = 0;
  fn.walk([&](LayerStackOp) { ++n; });
  return n;
}

double elementsTimesBytes(const plan::TensorSpec &t) {
  double n = static_cast<double>(dtypeBytes(t.dtype()));
  for (int64_t d : t.shape())
    n *= static_cast<double>(d);
  return n;
}

} // namespace

bool stackedLayers(ModuleOp parsed, int64_t &layers, std::string &error) {
  layers = 0;
  for (func::FuncOp fn : modelFunctions(parsed)) {
    if (countStacks(fn) > 1) {
      error = "the layout search takes models with one layer stack; @" + fn.getName().str() +
              " has " + std::to_string(countStacks(fn)) +
              " (an encoder-decoder: choose its layout with --report-memory and "
              "--report-parallel)";
      return false;
    }
    for (const ParamInfo &p : collectParams(fn))
      if (p.stackedLayers)
        layers = p.stackedLayers;
  }
  if (layers < 1) {
    error = "the layout search needs the model's layers as one mt.layer_stack";
    return false;
  }
  return true;
}

OwningOpRef<ModuleOp> withLayers(ModuleOp parsed, int64_t layers) {
  OwningOpRef<ModuleOp> copy(parsed.clone());
  for (func::FuncOp fn : modelFunctions(*copy)) {
    for (const ParamInfo &p : collectParams(fn)) {
      if (!p.stackedLayers)
        continue;
      SmallVector<int64_t> shape(p.type.getShape());
      shape[0] = layers;
      fn.getArgument(p.argNumber)
          .setType(RankedTensorType::get(shape, p.type.getElementType(), p.type.getEncoding()));
    }
    fn.setType(
        FunctionType::get(fn.getContext(), fn.getBody().getArgumentTypes(), fn.getResultTypes()));
  }
  return copy;
}

namespace {

/// The probe compiled on `dp` data-parallel ranks (the distributed
/// optimizer when more than one), with its memory report's figures.
struct ProbeCompile {
  OwningOpRef<ModuleOp> module;
  plan::Plan plan;
  MemoryPeaks peaks;
  std::vector<int64_t> parameterBytes;
};

bool compileProbeModule(ModuleOp parsed, const CompileSettings &settings, int64_t dp,
                        ProbeCompile &out, std::string &error) {
  CompileSettings s = settings;
  s.pp = kProbeStages;
  s.dp = dp;
  s.virtualStages = 1;
  s.schedule = plan::Parallelism::ONE_F_ONE_B;
  s.globalBatch = kProbeStages * dp * s.microBatchSize;
  s.distributedOptimizer = dp > 1;
  s.memoryBudget = 0;
  out.module = withLayers(parsed, kProbeLayers);
  // The compiler's first error says why the model does not take the layout.
  std::string said;
  ScopedDiagnosticHandler quiet(parsed.getContext(), [&](Diagnostic &d) {
    if (said.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      said = d.str();
    return success();
  });
  std::string report;
  if (!compileTraining(*out.module, /*runFrontend=*/true, s, out.plan, error) ||
      !memoryReport(*out.module, out.plan, report, out.peaks, error) ||
      !stageParameterBytes(out.plan, out.parameterBytes, error)) {
    if (error.empty())
      error = said.empty() ? "the model does not compile for it" : said;
    return false;
  }
  if (static_cast<int64_t>(out.peaks.resident.size()) != kProbeStages ||
      static_cast<int64_t>(out.parameterBytes.size()) != kProbeStages) {
    error = "the probe compile has " + std::to_string(out.peaks.resident.size()) + " stages, not 4";
    return false;
  }
  return true;
}

} // namespace

bool addDistributedProbe(ModuleOp parsed, const CompileSettings &settings,
                         std::vector<ProbeStage> &stages, std::string &error) {
  // A rank holds W + S / dp: two sizes give both.
  ProbeCompile two, four;
  if (!compileProbeModule(parsed, settings, 2, two, error) ||
      !compileProbeModule(parsed, settings, 4, four, error))
    return false;
  for (size_t k = 0; k < stages.size() && k < two.peaks.resident.size(); ++k) {
    double at2 = static_cast<double>(two.peaks.resident[k]);
    double at4 = static_cast<double>(four.peaks.resident[k]);
    stages[k].distributedSharded = 4 * (at2 - at4);
    stages[k].distributedWhole = at2 - stages[k].distributedSharded / 2;
  }
  return true;
}

bool compileProbe(ModuleOp parsed, const CompileSettings &settings, std::vector<ProbeStage> &stages,
                  int64_t &tokens, std::string &error) {
  ProbeCompile c;
  if (!compileProbeModule(parsed, settings, 1, c, error))
    return false;
  const MemoryPeaks &peaks = c.peaks;
  const std::vector<int64_t> &parameterBytes = c.parameterBytes;
  const plan::Plan &plan = c.plan;
  OwningOpRef<ModuleOp> &probe = c.module;
  stages.assign(kProbeStages, ProbeStage());
  for (size_t k = 0; k < stages.size(); ++k) {
    ProbeStage &st = stages[k];
    st.resident = static_cast<double>(peaks.resident[k]);
    st.optimizerState = static_cast<double>(peaks.optimizerState[k]);
    st.arena = static_cast<double>(peaks.arena[k]);
    st.stash = static_cast<double>(peaks.stash[k]);
    st.keeps = peaks.keeps[k];
    st.parameterBytes = static_cast<double>(parameterBytes[k]);
  }
  for (const plan::Function &f : plan.functions()) {
    if (f.stage() < 0 || f.stage() >= kProbeStages)
      continue;
    ProbeStage &st = stages[static_cast<size_t>(f.stage())];
    auto fn = probe->lookupSymbol<func::FuncOp>(f.name());
    if (!fn)
      continue;
    std::vector<OpRecord> ops = recordOps(fn);
    std::vector<OpRecord> *into = nullptr;
    switch (f.role()) {
    case plan::Function::FORWARD:
      into = &st.forward;
      for (const plan::TensorSpec &o : f.outputs())
        if (buffers::unstaged(o.name()) == buffers::kStageOutput)
          st.sendBytes = elementsTimesBytes(o);
      break;
    case plan::Function::TRAIN_STEP:
    case plan::Function::ACCUMULATE:
      into = &st.trainStep;
      break;
    case plan::Function::OPTIMIZER:
    case plan::Function::GRAD_SQ_NORM:
      into = &st.optimizer;
      break;
    default:
      break;
    }
    if (into)
      into->insert(into->end(), ops.begin(), ops.end());
  }
  tokens = plan.config().seq_length();
  return true;
}

} // namespace mt
