//===- LayoutSearch.cpp - mtc --search-layout and --explain -----------------===//
#include "mt/Driver/LayoutSearch.h"

#include "mt/Driver/LayoutProbe.h"
#include "mt/Driver/MemoryBudget.h"
#include "mt/Search/LayoutEstimate.h"
#include "mt/Tools/Registration.h"

#include "mlir/Parser/Parser.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <thread>
#include <tuple>

using namespace mlir;

namespace mt {

Layout layoutOf(const CompileSettings &s) {
  Layout l;
  l.tp = s.tp;
  l.pp = s.pp;
  l.dp = s.dp;
  l.virtualStages = s.virtualStages;
  l.microBatch = s.microBatchSize;
  l.sequenceParallel = s.sequenceParallel && s.tp > 1;
  l.distributedOptimizer = s.distributedOptimizer && s.dp > 1;
  l.recompute = s.granularity == RecomputeGranularity::Selective ? RecomputeChoice::Selective
                : s.granularity == RecomputeGranularity::Full    ? RecomputeChoice::Full
                                                                 : RecomputeChoice::None;
  return l;
}

CompileSettings settingsFor(const Layout &l, const CompileSettings &base) {
  CompileSettings s = base;
  s.tp = l.tp;
  s.pp = l.pp;
  s.dp = l.dp;
  s.virtualStages = l.virtualStages;
  s.schedule =
      l.virtualStages > 1 ? plan::Parallelism::INTERLEAVED : plan::Parallelism::ONE_F_ONE_B;
  s.microBatchSize = l.microBatch;
  s.sequenceParallel = l.sequenceParallel;
  s.recomputeAllGathers = l.sequenceParallel && TrainingDefaults::recomputeAllGathers;
  s.distributedOptimizer = l.distributedOptimizer;
  s.granularity = l.recompute == RecomputeChoice::Selective ? RecomputeGranularity::Selective
                  : l.recompute == RecomputeChoice::Full    ? RecomputeGranularity::Full
                                                            : RecomputeGranularity::None;
  s.method = RecomputeMethod::Uniform;
  s.numLayers = 1;
  s.memoryBudget = 0;
  return s;
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Probe compiles and the stage models priced from them, each made once.
/// The compiles a search needs run first, in parallel: a thread per core,
/// each with its own context holding the model parsed again.
class Probes {
public:
  Probes(ModuleOp parsed, const CompileSettings &base, const Cluster &cluster)
      : parsed_(parsed), base_(base), cluster_(cluster) {}

  /// Compiles every probe `layouts` need.
  void prepare(const std::vector<Layout> &layouts) {
    std::vector<Job> jobs;
    std::set<Key> queued;
    auto queue = [&](const Layout &l, int64_t microBatch, bool distributed) {
      Key key = keyOf(l, microBatch, distributed);
      if (compiled_.count(key) || !queued.insert(key).second)
        return;
      Layout probe = l;
      probe.microBatch = microBatch;
      jobs.push_back({probe, distributed, key, {}});
    };
    for (const Layout &l : layouts) {
      queue(l, 1, false);
      if (l.microBatch > 1)
        queue(l, 2, false);
      if (l.distributedOptimizer)
        queue(l, 1, true);
    }
    runInParallel(jobs);
    for (Job &job : jobs)
      compiled_.emplace(job.key, std::move(job.result));
  }

  /// The stage model of `l`'s tp, sp, recomputation and micro-batch size;
  /// null with `why` when the model does not compile for them.
  const StageModel *model(const Layout &l, std::string &why) {
    Key key = keyOf(l, l.microBatch, l.distributedOptimizer);
    auto it = models_.find(key);
    if (it == models_.end()) {
      prepare({l});
      StageModel m;
      std::string error;
      Compiled one = compiled_[keyOf(l, 1, false)];
      const Compiled &two = l.microBatch == 1 ? one : compiled_[keyOf(l, 2, false)];
      if (l.distributedOptimizer) {
        const Compiled &d = compiled_[keyOf(l, 1, true)];
        one.ok = one.ok && d.ok;
        one.error = one.error.empty() ? d.error : one.error;
        for (size_t k = 0; k < one.stages.size() && k < d.stages.size(); ++k) {
          one.stages[k].distributedWhole = d.stages[k].distributedWhole;
          one.stages[k].distributedSharded = d.stages[k].distributedSharded;
        }
      }
      bool ok = one.ok && two.ok &&
                priceProbe(one.stages, two.stages, l.microBatch, cluster_, l.tp, m, error);
      it = models_
               .emplace(key, std::make_pair(ok ? std::optional<StageModel>(m) : std::nullopt,
                                            !one.ok   ? one.error
                                            : !two.ok ? two.error
                                                      : error))
               .first;
    }
    why = it->second.second;
    return it->second.first ? &*it->second.first : nullptr;
  }
  int64_t compiles() const { return static_cast<int64_t>(compiled_.size()); }
  int64_t tokens() const {
    for (auto &[key, c] : compiled_)
      if (c.ok && c.tokens)
        return c.tokens;
    return 0;
  }

private:
  using Key = std::tuple<int64_t, bool, int, int64_t, bool>;
  struct Compiled {
    bool ok = false;
    std::string error;
    std::vector<ProbeStage> stages;
    int64_t tokens = 0;
  };
  struct Job {
    Layout probe;
    bool distributed;
    Key key;
    Compiled result;
  };
  static Key keyOf(const Layout &l, int64_t microBatch, bool distributed) {
    return std::make_tuple(l.tp, l.sequenceParallel, static_cast<int>(l.recompute), microBatch,
                           distributed);
  }

  void compile(ModuleOp parsed, Job &job) {
    Compiled &c = job.result;
    CompileSettings s = settingsFor(job.probe, base_);
    if (job.distributed) {
      c.stages.assign(4, ProbeStage());
      c.ok = addDistributedProbe(parsed, s, c.stages, c.error);
    } else {
      c.ok = compileProbe(parsed, s, c.stages, c.tokens, c.error);
    }
  }

  void runInParallel(std::vector<Job> &jobs) {
    size_t workers =
        std::min<size_t>(jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
    if (workers <= 1) {
      for (Job &job : jobs)
        compile(parsed_, job);
      return;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    parsed_.print(os);
    os.flush();
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w)
      threads.emplace_back([&] {
        DialectRegistry registry;
        registerDialects(registry);
        MLIRContext context(registry, MLIRContext::Threading::DISABLED);
        context.loadAllAvailableDialects();
        OwningOpRef<ModuleOp> model = parseSourceString<ModuleOp>(text, &context);
        for (size_t i = next++; i < jobs.size(); i = next++) {
          if (model)
            compile(*model, jobs[i]);
          else
            jobs[i].result.error = "the model does not parse again in a worker's context";
        }
      });
    for (std::thread &t : threads)
      t.join();
  }

  ModuleOp parsed_;
  const CompileSettings &base_;
  const Cluster &cluster_;
  std::map<Key, Compiled> compiled_;
  std::map<Key, std::pair<std::optional<StageModel>, std::string>> models_;
};

double peakFlopsOf(const CompileSettings &s, const Cluster &c) {
  return s.activationType == ActivationType::F32 ? c.chip.peakFlops32 : c.chip.peakFlops16;
}

struct Ranked {
  Layout layout;
  LayoutEstimate estimate;
  int64_t exact = -1; // the compiled peak, once known
};

void printTable(llvm::raw_ostream &out, const std::vector<const Ranked *> &rows) {
  out << "  rank  step (s)  tokens/s     MFU  TFLOP/s/GPU  peak: estimate    exact  layout\n";
  int rank = 0;
  for (const Ranked *r : rows) {
    char line[160];
    std::snprintf(line, sizeof line, "  %4d  %8.4f  %8.0f  %5.1f%%  %11.1f  %14s %8s  ", ++rank,
                  r->estimate.step, r->estimate.tokensPerSecond, 100 * r->estimate.mfu,
                  r->estimate.flopsPerGpu / 1e12, bytesText(r->estimate.mostBytes).c_str(),
                  bytesText(static_cast<double>(r->exact)).c_str());
    out << line << r->layout.brief() << "\n";
  }
}

} // namespace

bool searchLayouts(ModuleOp parsed, const CompileSettings &base, const LayoutSearchOptions &options,
                   llvm::raw_ostream &out, std::string &error) {
  auto start = std::chrono::steady_clock::now();
  const Cluster &cluster = options.cluster;
  int64_t layers = 0;
  if (!stackedLayers(parsed, layers, error))
    return false;
  LayoutBounds bounds = options.fixed;
  bounds.gpus = cluster.gpus;
  bounds.layers = layers;
  bounds.globalBatch = base.globalBatch;
  std::vector<Layout> layouts = enumerateLayouts(bounds);
  if (layouts.empty()) {
    error = "no layout of " + std::to_string(cluster.gpus) + " GPUs divides the " +
            std::to_string(layers) + " layers and the global batch of " +
            std::to_string(base.globalBatch) + " (with the choices given)";
    return false;
  }

  Probes probes(parsed, base, cluster);
  probes.prepare(layouts);
  std::vector<Ranked> ranked;
  std::map<std::pair<int64_t, std::string>, int64_t> refusals; // (tp, why) -> layouts
  int64_t over = 0;
  for (const Layout &l : layouts) {
    std::string why;
    const StageModel *model = probes.model(l, why);
    Ranked r{l, {}, -1};
    if (!model || !estimateLayout(l, *model, cluster, layers, base.globalBatch, probes.tokens(),
                                  peakFlopsOf(base, cluster), r.estimate, why)) {
      ++refusals[{l.tp, why}];
      continue;
    }
    if (!r.estimate.fits) {
      ++over;
      continue;
    }
    ranked.push_back(r);
  }
  double probeSeconds = secondsSince(start);
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked &a, const Ranked &b) {
    return a.estimate.step < b.estimate.step;
  });

  // The fastest, compiled in full, until `top` of them fit.
  std::vector<const Ranked *> proposed;
  std::vector<std::string> overExactly;
  for (Ranked &r : ranked) {
    if (static_cast<int64_t>(proposed.size()) >= options.top)
      break;
    int64_t peak = 0;
    if (!peakOf(parsed, settingsFor(r.layout, base), peak)) {
      overExactly.push_back(r.layout.brief() + ": does not compile");
      continue;
    }
    r.exact = peak;
    if (peak > cluster.usableBytes()) {
      overExactly.push_back(r.layout.brief() + ": estimate " + bytesText(r.estimate.mostBytes) +
                            ", compiled " + bytesText(static_cast<double>(peak)));
      continue;
    }
    proposed.push_back(&r);
  }

  out << "layout search: " << cluster.gpus << " GPUs, " << cluster.describe() << "; " << layers
      << " layers, global batch " << base.globalBatch << " x " << probes.tokens() << " tokens\n";
  out << "  " << layouts.size() << " layouts divide the GPUs, the layers and the batch; "
      << probes.compiles() << " probe compiles in " << llvm::format("%.1f", probeSeconds) << " s\n";
  for (auto &[what, count] : refusals)
    out << "  " << count << " with tp " << what.first << " refused by the compiler: " << what.second
        << "\n";
  out << "  " << over << " do not fit " << bytesText(static_cast<double>(cluster.usableBytes()))
      << " (estimate); " << ranked.size() << " ranked by predicted step time\n";
  for (const std::string &line : overExactly)
    out << "  compiled in full, over the memory: " << line << "\n";
  if (proposed.empty()) {
    error = ranked.empty() ? "no layout of the model fits " +
                                 bytesText(static_cast<double>(cluster.usableBytes())) + " per GPU"
                           : "none of the " + std::to_string(overExactly.size()) +
                                 " fastest layouts fits once compiled in full";
    return false;
  }
  out << "  the fastest that fit, each compiled in full for its exact peak memory:\n";
  printTable(out, proposed);
  if (options.explain)
    out << proposed.front()->estimate.explanation
        << "  memory, compiled in full (--report-memory): peak " << proposed.front()->exact
        << " bytes on the fullest pipeline stage\n";
  out << "searched in " << llvm::format("%.1f", secondsSince(start)) << " s\n";
  out << "best: " << proposed.front()->layout.flags() << "\n";
  return true;
}

bool explainLayout(ModuleOp parsed, const CompileSettings &settings, const Cluster &cluster,
                   llvm::raw_ostream &out, std::string &error) {
  int64_t layers = 0;
  if (!stackedLayers(parsed, layers, error))
    return false;
  Layout l = layoutOf(settings);
  if (l.ranks() != cluster.gpus) {
    error = "the layout has " + std::to_string(l.ranks()) + " ranks (tp x pp x dp) for --gpus " +
            std::to_string(cluster.gpus);
    return false;
  }
  Probes probes(parsed, settings, cluster);
  std::string why;
  const StageModel *model = probes.model(l, why);
  LayoutEstimate e;
  if (!model || !estimateLayout(l, *model, cluster, layers, settings.globalBatch, probes.tokens(),
                                peakFlopsOf(settings, cluster), e, why)) {
    error = "the model does not take this layout: " + why;
    return false;
  }
  out << "predicted on " << cluster.gpus << " GPUs, " << cluster.describe() << "\n"
      << e.explanation;
  int64_t peak = 0;
  if (peakOf(parsed, settingsFor(l, settings), peak))
    out << "  memory, compiled in full (--report-memory): peak " << peak << " bytes ("
        << bytesText(static_cast<double>(peak)) << ") on the fullest pipeline stage: "
        << (peak <= cluster.usableBytes() ? "fits" : "does not fit") << "\n";
  return true;
}

} // namespace mt
