//===- MemoryReport.cpp - mtc --report-memory ------------------------------===//
#include "mt/Driver/MemoryReport.h"

#include "mt/Analysis/ActivationMemory.h"
#include "mt/Analysis/ModelInfo.h"
#include "mt/Analysis/OpCost.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Plan/ParallelReport.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Schedule/PipelineSchedule.h"

#include "mt/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

using namespace mlir;

namespace mt {

namespace {

int64_t bytesOf(const plan::TensorSpec &s) {
  int64_t n = s.dtype() == plan::F64 || s.dtype() == plan::I64    ? 8
              : s.dtype() == plan::BF16 || s.dtype() == plan::F16 ? 2
              : s.dtype() == plan::I1                             ? 1
                                                                  : 4;
  for (int64_t d : s.shape())
    n *= d;
  return n;
}

std::string mb(int64_t bytes) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

/// One layer's saved tensors, grouped: "mt.softmax 2x4x16x16xbf16" x 1.
std::string describeLayer(const ActivationMemory &a, std::optional<int64_t> layer) {
  std::map<std::string, std::pair<int64_t, int64_t>> groups; // what -> count, bytes each
  std::vector<std::string> order;
  for (const SavedTensor &t : a.saved)
    if (t.layer == layer) {
      std::string what = t.producer + " " + t.type;
      auto [it, added] = groups.try_emplace(what, 0, t.bytes);
      if (added)
        order.push_back(what);
      ++it->second.first;
    }
  std::string s;
  for (const std::string &what : order) {
    auto [count, bytes] = groups[what];
    s += (s.empty() ? "" : ", ") + what + (count > 1 ? " x" + std::to_string(count) : "") + " (" +
         std::to_string(bytes * count) + ")";
  }
  return s;
}

/// What a training step computes again in its backward, and what its
/// forward computes once.
struct Recomputation {
  int64_t flops = 0, forwardFlops = 0;
  std::map<std::optional<int64_t>, std::string> byLayer; // "mt.softmax x2, mt.linear"
  std::string plan;                                      // auto's choice, if any
};

Recomputation recomputationOf(func::FuncOp fn) {
  Recomputation r;
  llvm::DenseSet<Value> activation = activationValues(fn);
  std::map<std::optional<int64_t>, std::vector<std::pair<std::string, int64_t>>> ops;
  for (Operation &op : fn.getBody().front()) {
    std::optional<int64_t> layer;
    if (auto l = op.getAttrOfType<IntegerAttr>(kLayerAttrName))
      layer = l.getInt();
    if (op.hasAttr(kRecomputedAttrName)) {
      r.flops += opFlops(&op);
      auto &list = ops[layer];
      std::string name = op.getName().getStringRef().str();
      if (!list.empty() && list.back().first == name)
        ++list.back().second;
      else
        list.emplace_back(name, 1);
    } else if (!op.hasAttr(kBackwardAttrName) &&
               llvm::any_of(op.getResults(), [&](Value v) { return activation.contains(v); })) {
      r.forwardFlops += opFlops(&op);
    }
  }
  for (auto &[layer, list] : ops) {
    std::string text;
    for (auto &[name, count] : list)
      text += (text.empty() ? "" : ", ") + name + (count > 1 ? " x" + std::to_string(count) : "");
    r.byLayer[layer] = text;
  }
  if (auto plan = fn->getAttrOfType<DictionaryAttr>(kRecomputePlanAttrName)) {
    auto get = [&](const char *key) {
      auto a = plan.getAs<IntegerAttr>(key);
      return a ? a.getInt() : 0;
    };
    r.plan = "chosen by --recompute-granularity=auto for " + std::to_string(get("budget")) +
             " bytes of live activations (the budget less what this rank holds otherwise), "
             "from " +
             std::to_string(get("cuts")) + " minimum cuts: step peak " +
             std::to_string(get("peak"));
    auto fits = plan.getAs<BoolAttr>("fits");
    r.plan += fits && fits.getValue() ? ", fits" : ", the least any cut reaches: does not fit";
  }
  return r;
}

/// Per virtual stage: the step's activation accounting, the forward's
/// transient peak and the stage input a pipelined micro-batch keeps.
struct StageActivations {
  std::vector<ActivationMemory> step, forward;
  std::vector<Recomputation> recomputed;
  std::vector<int64_t> stash;
  /// Whether the stage keeps its activations (mt-split-stage-step): then
  /// `stash` is the bytes of one micro-batch's saved set.
  std::vector<bool> keeps;
};

bool analyzeStages(ModuleOp module, const plan::Plan &plan, int64_t stages, StageActivations &out,
                   std::string &error) {
  std::vector<ActivationMemory> &step = out.step, &forward = out.forward;
  step.assign(static_cast<size_t>(stages), ActivationMemory());
  forward.assign(step.size(), ActivationMemory());
  std::vector<Recomputation> &recomputed = out.recomputed;
  recomputed.assign(step.size(), Recomputation());
  std::vector<int64_t> &stash = out.stash;
  stash.assign(step.size(), 0);
  out.keeps.assign(step.size(), false);
  std::vector<int64_t> forwardFlops(step.size(), 0);
  for (int64_t k = 0; k < stages; ++k) {
    bool found = false;
    for (const plan::Function &f : plan.functions()) {
      if (f.stage() != k ||
          (f.role() != plan::Function::TRAIN_STEP && f.role() != plan::Function::FORWARD))
        continue;
      auto fn = module.lookupSymbol<func::FuncOp>(f.name());
      if (!fn) {
        error = "the plan's function @" + f.name() + " is not in the module";
        return false;
      }
      size_t i = static_cast<size_t>(k);
      if (f.role() == plan::Function::FORWARD) {
        forward[i] = analyzeActivations(fn);
        forwardFlops[i] = recomputationOf(fn).forwardFlops;
        continue;
      }
      found = true;
      step[i] = analyzeActivations(fn);
      recomputed[i] = recomputationOf(fn);
      // What a micro-batch keeps from its forward to its backward: the saved
      // set, or (a step that computes its forward) the stage input.
      int64_t saved = 0, input = 0;
      for (const plan::TensorSpec &in : f.inputs()) {
        if (buffers::isSaved(in.name()))
          saved += bytesOf(in);
        else if (buffers::unstaged(in.name()) == buffers::kStageInput)
          input = bytesOf(in);
      }
      out.keeps[i] = saved > 0;
      stash[i] = out.keeps[i] ? saved : input;
    }
    // A step without forward ops: the forward's work is the forward's.
    if (out.keeps[static_cast<size_t>(k)])
      recomputed[static_cast<size_t>(k)].forwardFlops = forwardFlops[static_cast<size_t>(k)];
    if (!found) {
      error = "virtual stage " + std::to_string(k) + " has no training step";
      return false;
    }
  }

  return true;
}

/// Each function's arena, planned on a bufferized copy exactly as the
/// native code will be.
bool planArenas(ModuleOp module, std::map<std::string, int64_t> &arenas, std::string &error) {
  OwningOpRef<ModuleOp> copy(module.clone());
  PassManager bufferize(module.getContext());
  if (failed(buildBufferizePipeline(bufferize)) || failed(bufferize.run(*copy))) {
    error = "bufferizing the plan's functions failed";
    return false;
  }
  for (auto fn : copy->getOps<func::FuncOp>())
    if (auto bytes = fn->getAttrOfType<IntegerAttr>(kArenaBytesAttrName))
      arenas[fn.getName().str()] = bytes.getInt();
  return true;
}

/// Virtual stage k's saved activations by layer (identical consecutive
/// layers once) and what its backward recomputes.
void describeStageActivations(std::ostringstream &r, int64_t k, const ActivationMemory &a,
                              const Recomputation &rc) {
  std::set<std::optional<int64_t>> layers;
  for (const SavedTensor &t : a.saved)
    layers.insert(t.layer);
  // Identical consecutive layers are listed once.
  std::optional<int64_t> runStart;
  std::string runText;
  int64_t runBytes = 0, runEnd = 0;
  auto flush = [&] {
    if (!runStart)
      return;
    r << "      "
      << (*runStart == runEnd
              ? "layer " + std::to_string(runEnd)
              : "layers " + std::to_string(*runStart) + "-" + std::to_string(runEnd) + ", each")
      << ": " << runBytes << " = " << runText << "\n";
    runStart.reset();
  };
  for (std::optional<int64_t> layer : layers) {
    if (!layer)
      continue;
    std::string text = describeLayer(a, layer);
    int64_t bytes = a.layerBytes(layer);
    if (runStart && text == runText && *layer == runEnd + 1) {
      runEnd = *layer;
      continue;
    }
    flush();
    runStart = layer;
    runEnd = *layer;
    runText = text;
    runBytes = bytes;
  }
  flush();
  if (layers.count(std::nullopt))
    r << "      outside the layers: " << a.layerBytes(std::nullopt) << " = "
      << describeLayer(a, std::nullopt) << "\n";
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%",
                rc.forwardFlops
                    ? 100.0 * static_cast<double>(rc.flops) / static_cast<double>(rc.forwardFlops)
                    : 0.0);
  r << "    virtual stage " << k << ": recomputed in the backward, per micro-batch: " << rc.flops
    << " FLOPs (" << share << " of the forward's " << rc.forwardFlops << ")\n";
  if (!rc.plan.empty())
    r << "      " << rc.plan << "\n";
  // Identical consecutive layers once, as above.
  std::optional<int64_t> from, to;
  std::string text;
  auto flushRecomputed = [&] {
    if (!text.empty())
      r << "      "
        << (!from ? std::string("outside the layers")
            : *from == *to
                ? "layer " + std::to_string(*from)
                : "layers " + std::to_string(*from) + "-" + std::to_string(*to) + ", each")
        << ": " << text << "\n";
    text.clear();
  };
  for (auto &[layer, ops] : rc.byLayer) {
    if (layer && to && !text.empty() && ops == text && *layer == *to + 1) {
      to = layer;
      continue;
    }
    flushRecomputed();
    from = to = layer;
    text = ops;
  }
  flushRecomputed();
}

/// The bytes of the runtime's buffers on pipeline rank `s` (every input
/// and output of its functions, and a scratch copy of each output that
/// overwrites an input), by category.
int64_t residentBuffers(const plan::Plan &plan, int64_t s, int64_t pp,
                        const std::set<std::string> &params,
                        std::map<std::string, int64_t> &byCategory) {
  std::map<std::string, int64_t> buffers;
  for (const plan::Function &f : plan.functions()) {
    if (f.stage() % pp != s)
      continue;
    std::set<std::string> inputs;
    // Saved activations are held per micro-batch in flight, counted apart.
    for (const plan::TensorSpec &in : f.inputs()) {
      if (buffers::isSaved(in.name()))
        continue;
      buffers[in.name()] = bytesOf(in);
      inputs.insert(in.name());
    }
    for (const plan::TensorSpec &o : f.outputs()) {
      if (buffers::isSaved(o.name()))
        continue;
      buffers[o.name()] = bytesOf(o);
      if (inputs.count(o.name()))
        buffers[o.name() + "#next"] = bytesOf(o);
    }
  }
  int64_t resident = 0;
  for (auto &[name, bytes] : buffers) {
    byCategory[buffers::categoryOf(name, params)] += bytes;
    resident += bytes;
  }
  return resident;
}

/// Pipeline rank `s`'s arena (as large as its largest function's), and a
/// line listing each function's.
int64_t rankArena(const plan::Plan &plan, int64_t s, int64_t pp, int64_t stages,
                  const std::map<std::string, int64_t> &arenas, std::ostringstream &r) {
  int64_t arena = 0;
  std::string arenaOf, perFunction;
  for (const plan::Function &f : plan.functions()) {
    if (f.stage() % pp != s)
      continue;
    int64_t bytes = arenas.count(f.name()) ? arenas.at(f.name()) : 0;
    std::string role(nameOf(f.role()));
    perFunction += (perFunction.empty() ? "" : ", ") + role +
                   (stages > 1 ? " of virtual stage " + std::to_string(f.stage()) : "") + " " +
                   std::to_string(bytes);
    if (bytes > arena) {
      arena = bytes;
      arenaOf = role;
    }
  }
  r << "    temporaries: one arena of " << arena << " (" << mb(arena)
    << "), every buffer of a call at an offset planned by mt-plan-buffers; per function: "
    << perFunction << "\n";
  return arena;
}

/// The saved activations pipeline rank `s` holds for its micro-batches in
/// flight (one set each, allocated up front), with a line per virtual stage;
/// `sets` counts them.
int64_t savedInFlight(const StageActivations &stage, const PipelineSchedule &schedule, int64_t s,
                      int64_t pp, int64_t stages, int64_t &sets, std::ostringstream &r) {
  int64_t held = 0;
  for (int64_t k = s; k < stages && stages > 1; k += pp) {
    if (!stage.keeps[static_cast<size_t>(k)])
      continue;
    int64_t n = mostInFlight(schedule, s, k / pp);
    int64_t bytes = stage.stash[static_cast<size_t>(k)];
    held += n * bytes;
    sets += n;
    r << "    virtual stage " << k << " keeps what its backward reads from its forward: " << bytes
      << " per micro-batch x " << n << " in flight = " << n * bytes << " (" << mb(n * bytes)
      << ")\n";
  }
  return held;
}

/// Pipeline rank `s`'s heading and the buffers it holds throughout.
void describeRank(std::ostringstream &r, int64_t s, int64_t pp, int64_t stages, int64_t resident,
                  std::map<std::string, int64_t> &byCategory) {
  std::string held;
  for (int64_t k = s; k < stages; k += pp)
    held += (held.empty() ? "" : ", ") + std::to_string(k);
  r << "  pipeline stage " << s << " (virtual stages " << held << "):\n";
  r << "    buffers held throughout: " << resident << " (" << mb(resident) << "):";
  const char *sep = " ";
  for (const char *cat :
       {"parameters", "gradients", "optimizer state", "batch, stage and loss tensors"}) {
    r << sep << cat << " " << byCategory[cat];
    sep = ", ";
  }
  r << "\n";
}

/// `peaks` sized for `pp` ranks and `stages` virtual stages, nothing yet.
void startPeaks(MemoryPeaks &peaks, int64_t pp, int64_t stages, const StageActivations &stage) {
  peaks.perPipelineRank.assign(static_cast<size_t>(pp), 0);
  peaks.stepBase.assign(static_cast<size_t>(stages), 0);
  peaks.arenaOverhead.assign(static_cast<size_t>(stages), 0);
  peaks.savedSets.assign(static_cast<size_t>(stages), 1);
  peaks.resident.assign(static_cast<size_t>(pp), 0);
  peaks.optimizerState.assign(static_cast<size_t>(pp), 0);
  peaks.arena.assign(static_cast<size_t>(pp), 0);
  peaks.stash = stage.stash;
  peaks.keeps = stage.keeps;
}

} // namespace

bool memoryReport(ModuleOp module, const plan::Plan &plan, std::string &out, MemoryPeaks &peaks,
                  std::string &error) {
  const plan::Config &c = plan.config();
  const plan::Parallelism &par = c.parallel();
  int64_t pp = std::max<int64_t>(par.pipeline_parallel_size(), 1);
  int64_t dp = std::max<int64_t>(par.data_parallel_size(), 1);
  int64_t v = std::max<int64_t>(par.virtual_stages(), 1);
  int64_t stages = plan.stages_size() ? plan.stages_size() : 1;
  int64_t micro = c.global_batch_size() / std::max<int64_t>(c.micro_batch_size() * dp, 1);
  std::set<std::string> params;
  for (const plan::Parameter &p : plan.parameters())
    params.insert(p.name());

  StageActivations stage;
  if (!analyzeStages(module, plan, stages, stage, error))
    return false;
  const std::vector<ActivationMemory> &step = stage.step;
  const std::vector<int64_t> &stash = stage.stash;

  std::ostringstream r;
  r << "memory per rank, before anything runs (" << micro << " micro-batches of "
    << c.micro_batch_size() << " sequences per data-parallel rank and step; bytes):\n";
  startPeaks(peaks, pp, stages, stage);
  std::map<std::string, int64_t> arenas;
  if (!planArenas(module, arenas, error))
    return false;
  PipelineSchedule schedule;
  std::string scheduleError;
  if (stages > 1 && (schedule = v > 1 ? scheduleInterleaved(pp, v, micro, scheduleError)
                                      : schedule1F1B(pp, micro))
                        .empty()) {
    error = "the pipeline schedule cannot run: " + scheduleError;
    return false;
  }
  for (int64_t s = 0; s < pp; ++s) {
    std::map<std::string, int64_t> byCategory;
    int64_t resident = residentBuffers(plan, s, pp, params, byCategory);
    describeRank(r, s, pp, stages, resident, byCategory);

    for (int64_t k = s; k < stages; k += pp) {
      const ActivationMemory &a = step[static_cast<size_t>(k)];
      r << "    virtual stage " << k
        << ": activations the backward reads, per micro-batch: " << a.savedBytes << " ("
        << mb(a.savedBytes) << ")\n";
      describeStageActivations(r, k, a, stage.recomputed[static_cast<size_t>(k)]);
    }

    int64_t arena = rankArena(plan, s, pp, stages, arenas, r);
    peaks.resident[static_cast<size_t>(s)] = resident;
    peaks.optimizerState[static_cast<size_t>(s)] = byCategory["optimizer state"];
    peaks.arena[static_cast<size_t>(s)] = arena;
    for (int64_t k = s; k < stages; k += pp) {
      const ActivationMemory &a = step[static_cast<size_t>(k)];
      r << "    virtual stage " << k
        << ": live activations of the training step at their "
           "most (in the arena): "
        << a.peakBytes << ", after " << a.peakAt << "\n";
      for (const plan::Function &f : plan.functions())
        if (f.stage() == k && f.role() == plan::Function::TRAIN_STEP && arenas.count(f.name()))
          peaks.arenaOverhead[static_cast<size_t>(k)] =
              std::max<int64_t>(arenas.at(f.name()) - a.peakBytes, 0);
    }

    // Walk the schedule: the stage inputs of micro-batches in flight, kept
    // by a step that computes its forward again; a stage that keeps its
    // activations has one saved set per micro-batch in flight, allocated
    // up front.
    int64_t savedSets = 0;
    int64_t savedHeld = savedInFlight(stage, schedule, s, pp, stages, savedSets, r);
    for (int64_t k = s; k < stages; k += pp)
      peaks.savedSets[static_cast<size_t>(k)] = std::max<int64_t>(savedSets, 1);
    int64_t peak = 0, inFlight = 0;
    std::string peakWhen;
    auto visit = [&](int64_t k, bool isForward, int64_t mbIndex, int64_t heldBefore) {
      int64_t total = resident + savedHeld + arena + heldBefore;
      if (!isForward || stages == 1) {
        int64_t &base = peaks.stepBase[static_cast<size_t>(k)];
        base = std::max(base, resident + heldBefore);
      }
      if (total > peak) {
        peak = total;
        peakWhen = stages == 1 ? std::string("every step: the buffers and the arena are allocated "
                                             "once")
                               : std::string(isForward ? "the forward" : "the training step") +
                                     " of micro-batch " + std::to_string(mbIndex) +
                                     " on virtual stage " + std::to_string(k) + ", with " +
                                     std::to_string(inFlight) + " micro-batch(es) in flight";
      }
    };
    int64_t heldBytes = 0, mostInput = 0;
    if (stages == 1) {
      visit(0, false, 0, 0);
    } else {
      for (const PipelineOp &op : schedule[static_cast<size_t>(s)]) {
        int64_t k = op.chunk * pp + s;
        bool isForward = op.kind == PipelineOp::Forward;
        bool keeps = stage.keeps[static_cast<size_t>(k)];
        int64_t input = keeps ? 0 : stash[static_cast<size_t>(k)];
        visit(k, isForward, op.microBatch, heldBytes);
        heldBytes += isForward ? input : -input;
        inFlight += isForward ? 1 : -1;
        mostInput = std::max(mostInput, heldBytes);
      }
      if (mostInput > 0)
        r << "    stage inputs kept for a training step that computes its forward again: at most "
          << mostInput << " (" << mb(mostInput) << ")\n";
      else // nothing comes and goes: the peak holds from the first pass
        peakWhen = "every step: the buffers, the arena and the saved sets are allocated once";
    }
    r << "    peak: " << peak << " (" << mb(peak) << ") = buffers + arena";
    if (savedHeld > 0)
      r << " + saved activations in flight";
    if (mostInput > 0)
      r << " + stage inputs in flight";
    r << ", during " << peakWhen << "\n";
    peaks.perPipelineRank[static_cast<size_t>(s)] = peak;
  }
  out = r.str();
  return true;
}

} // namespace mt
