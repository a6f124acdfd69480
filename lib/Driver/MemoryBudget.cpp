//===- MemoryBudget.cpp - what would make a plan fit -----------------------===//
#include "mt/Driver/MemoryBudget.h"

#include "mt/Driver/MemoryReport.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <functional>

using namespace mlir;

namespace mt {

bool peakOf(ModuleOp parsed, const CompileSettings &settings, int64_t &peak) {
  // Layouts the model cannot take are not options: say nothing of them.
  ScopedDiagnosticHandler quiet(parsed.getContext(), [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> copy(parsed.clone());
  plan::Plan plan;
  std::string error, report;
  MemoryPeaks peaks;
  if (!compileTraining(*copy, /*runFrontend=*/true, settings, plan, error) ||
      !memoryReport(*copy, plan, report, peaks, error) || peaks.perPipelineRank.empty())
    return false;
  peak = *std::max_element(peaks.perPipelineRank.begin(), peaks.perPipelineRank.end());
  return true;
}

namespace {

struct Change {
  std::string flags;
  std::function<void(CompileSettings &)> apply;
  bool needsMoreRanks = false;
};

std::vector<Change> changesOf(const CompileSettings &s) {
  std::vector<Change> changes;
  if (s.granularity != RecomputeGranularity::Selective)
    changes.push_back({"--recompute-granularity=selective", [](CompileSettings &c) {
                         c.granularity = RecomputeGranularity::Selective;
                       }});
  if (s.granularity != RecomputeGranularity::Auto)
    changes.push_back({"--recompute-granularity=auto",
                       [](CompileSettings &c) { c.granularity = RecomputeGranularity::Auto; }});
  if (s.granularity != RecomputeGranularity::Full || s.method != RecomputeMethod::Uniform ||
      s.numLayers != 1)
    changes.push_back({"--recompute-granularity=full", [](CompileSettings &c) {
                         c.granularity = RecomputeGranularity::Full;
                         c.method = RecomputeMethod::Uniform;
                         c.numLayers = 1;
                       }});
  if (s.storeDropoutMasks)
    changes.push_back(
        {"--dropout-masks=regenerate", [](CompileSettings &c) { c.storeDropoutMasks = false; }});
  if (s.tp > 1 && !s.sequenceParallel)
    changes.push_back({"--sp", [](CompileSettings &c) {
                         c.sequenceParallel = true;
                         c.recomputeAllGathers = true;
                       }});
  if (s.tp > 1 && s.sequenceParallel && !s.recomputeAllGathers)
    changes.push_back(
        {"--recompute-all-gathers", [](CompileSettings &c) { c.recomputeAllGathers = true; }});
  if (s.dp > 1 && !s.distributedOptimizer)
    changes.push_back(
        {"--distributed-optimizer", [](CompileSettings &c) { c.distributedOptimizer = true; }});
  for (int64_t m = s.microBatchSize / 2; m >= 1; m /= 2)
    changes.push_back({"--micro-batch-size=" + std::to_string(m),
                       [m](CompileSettings &c) { c.microBatchSize = m; }});
  changes.push_back({"--tp=" + std::to_string(2 * s.tp) + " --sp",
                     [](CompileSettings &c) {
                       c.tp *= 2;
                       c.sequenceParallel = true;
                       c.recomputeAllGathers = true;
                     },
                     true});
  changes.push_back(
      {"--pp=" + std::to_string(2 * s.pp), [](CompileSettings &c) { c.pp *= 2; }, true});
  return changes;
}

std::string describe(const Change &change, const CompileSettings &s, int64_t peak) {
  std::string line = change.flags + ": peak " + std::to_string(peak) + " bytes on the fullest rank";
  if (change.needsMoreRanks) {
    CompileSettings c = s;
    change.apply(c);
    line += " (" + std::to_string(c.tp * c.pp * c.dp) + " ranks)";
  }
  return line;
}

} // namespace

std::vector<std::string> optionsThatFit(ModuleOp parsed, const CompileSettings &settings) {
  std::vector<std::string> fits;
  std::vector<Change> changes = changesOf(settings);
  for (const Change &change : changes) {
    CompileSettings trial = settings;
    change.apply(trial);
    int64_t peak = 0;
    if (peakOf(parsed, trial, peak) && peak <= settings.memoryBudget)
      fits.push_back(describe(change, settings, peak));
  }
  if (!fits.empty())
    return fits;
  // Nothing alone: full recomputation with each other change.
  Change full = {"--recompute-granularity=full", [](CompileSettings &c) {
                   c.granularity = RecomputeGranularity::Full;
                   c.method = RecomputeMethod::Uniform;
                   c.numLayers = 1;
                 }};
  for (const Change &change : changes) {
    if (change.flags.rfind("--recompute-granularity", 0) == 0)
      continue;
    CompileSettings trial = settings;
    full.apply(trial);
    change.apply(trial);
    int64_t peak = 0;
    if (peakOf(parsed, trial, peak) && peak <= settings.memoryBudget)
      fits.push_back(describe({full.flags + " " + change.flags,
                               [&](CompileSettings &c) {
                                 full.apply(c);
                                 change.apply(c);
                               },
                               change.needsMoreRanks},
                              settings, peak));
  }
  return fits;
}

std::string budgetRefusal(const std::string &report, const MemoryPeaks &peaks,
                          mlir::ModuleOp parsed, const CompileSettings &settings) {
  std::string over;
  for (size_t s = 0; s < peaks.perPipelineRank.size(); ++s)
    if (peaks.perPipelineRank[s] > settings.memoryBudget)
      over += "\n  pipeline stage " + std::to_string(s) + ": peak " +
              std::to_string(peaks.perPipelineRank[s]) + " bytes, " +
              std::to_string(peaks.perPipelineRank[s] - settings.memoryBudget) + " over";
  if (over.empty())
    return "";
  std::string out =
      "the plan does not fit --memory-budget=" + std::to_string(settings.memoryBudget) +
      " bytes per rank:" + over + "\nwhat each rank holds:\n" + report;
  std::vector<std::string> options = optionsThatFit(parsed, settings);
  if (options.empty())
    return out + "no option tried makes it fit (recomputation, dropout masks, micro-batch "
                 "size, distributed optimizer, sequence parallelism, twice the tensor- or "
                 "pipeline-parallel ranks, and full recomputation with each): it needs a "
                 "larger budget\n";
  out += "options that make it fit (each compiled and accounted):\n";
  for (const std::string &line : options)
    out += "  " + line + "\n";
  return out;
}

} // namespace mt
