//===- ParallelReport.cpp - what each rank of a plan holds and sends -------===//
#include "mt/Plan/ParallelReport.h"
#include "mt/Plan/LinkTraffic.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Plan/PlanFile.h"

#include "mt/Schedule/PipelineSchedule.h"
#include "mt/Sharding/MeshShape.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <sstream>

namespace mt {

namespace {

int64_t elementsOf(const plan::TensorSpec &s) {
  int64_t n = 1;
  for (int64_t d : s.shape())
    n *= d;
  return n;
}

/// How many pieces a parameter's global shape is cut into on each rank.
int64_t shardsOf(const plan::Parameter &p, int64_t tp) { return p.has_tp_shard() ? tp : 1; }

/// Ring-equivalent bytes one rank sends for a collective over a group of n:
/// all-reduce 2(n-1)/n of the buffer, all-gather and reduce-scatter (n-1)/n
/// of the full buffer.
double ringBytes(plan::CollectiveVolume::Kind kind, double bytes, int64_t n) {
  double share = static_cast<double>(n - 1) / static_cast<double>(n);
  return (kind == plan::CollectiveVolume::ALL_REDUCE ? 2 : 1) * share * bytes;
}

std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f MB", bytes / 1e6);
  return text;
}

} // namespace

bool stageParameterBytes(const plan::Plan &plan, std::vector<int64_t> &bytes, std::string &error) {
  int64_t tp = std::max<int64_t>(plan.config().parallel().tensor_parallel_size(), 1);
  int64_t stages = plan.stages_size() ? plan.stages_size() : 1;
  std::map<std::string, const plan::Parameter *> byName;
  for (const plan::Parameter &p : plan.parameters())
    byName[p.name()] = &p;
  bytes.assign(static_cast<size_t>(stages), 0);
  if (plan.stages_size() == 0) {
    for (const plan::Parameter &p : plan.parameters()) {
      int64_t n = 1;
      for (int64_t d : p.shape())
        n *= d;
      bytes[0] += n * dtypeBytes(p.dtype()) / shardsOf(p, tp);
    }
    return true;
  }
  for (int64_t k = 0; k < stages; ++k)
    for (const plan::StageParameter &sp : plan.stages(static_cast<int>(k)).parameters()) {
      const plan::Parameter *p = byName[sp.name()];
      if (!p) {
        error = "stage " + std::to_string(k) + " holds unknown parameter '" + sp.name() + "'";
        return false;
      }
      int64_t n = 1;
      for (int i = 0; i < p->shape_size(); ++i)
        n *= (i == 0 && sp.layer_end() > 0) ? sp.layer_end() - sp.layer_begin() : p->shape(i);
      bytes[static_cast<size_t>(k)] += n * dtypeBytes(p->dtype()) / shardsOf(*p, tp);
    }
  return true;
}

/// The pipeline schedule's simulated bubble against the ideal one.
bool bubbleLine(int64_t pp, int64_t v, int64_t micro, std::string &out, std::string &error) {
  PipelineSchedule schedule;
  std::string scheduleError;
  if (v > 1)
    schedule = scheduleInterleaved(pp, v, micro, scheduleError);
  else
    schedule = schedule1F1B(pp, micro);
  SimulationResult sim;
  // Backward = 2 x forward, as in the paper's analysis.
  if (schedule.empty() || !simulate(schedule, v, micro, 1.0, 2.0, sim, scheduleError)) {
    error = "the pipeline schedule cannot run: " + scheduleError;
    return false;
  }
  char line[160];
  std::snprintf(line, sizeof line,
                "pipeline schedule %s: bubble fraction %.4f (ideal (p-1)/%s = %.4f)\n",
                v > 1 ? "interleaved 1F1B" : "1F1B", sim.bubbleFraction, v > 1 ? "(v m)" : "m",
                static_cast<double>(pp - 1) / static_cast<double>(v * micro));
  out = line;
  return true;
}

/// A kind of collective in the compiled code: calls and ring bytes per
/// step, and its mesh axes (bit 0 pp, 1 dp, 2 tp).
struct CompiledVolume {
  int64_t calls = 0;
  double bytes = 0;
  int64_t mask = 0;
};

/// Collectives in the compiled code of pipeline rank `s`, by "kind over
/// axes", per step: the stage's forward (pipelined, not last) and training
/// step run once per micro-batch, the rest once per step.
std::map<std::string, CompiledVolume> compiledCollectives(const plan::Plan &plan, int64_t s,
                                                          int64_t pp, int64_t dp, int64_t tp,
                                                          int64_t micro) {
  int64_t stages = plan.stages_size() ? plan.stages_size() : 1;
  std::map<std::string, CompiledVolume> compiled;
  for (int64_t k = s; k < stages; k += pp)
    for (const plan::Function &f : plan.functions()) {
      if (f.stage() != k || f.role() == plan::Function::EVAL)
        continue;
      bool perMicroBatch = f.role() == plan::Function::TRAIN_STEP ||
                           (f.role() == plan::Function::FORWARD && stages > 1 && k + 1 < stages);
      if (f.role() == plan::Function::FORWARD && !perMicroBatch)
        continue;
      int64_t times = perMicroBatch ? micro : 1;
      for (const plan::CollectiveVolume &cv : f.collectives()) {
        int64_t n = 1, mask = 0;
        std::string over;
        for (int axis : cv.axes()) {
          n *= axis == plan::TP ? tp : axis == plan::DP ? dp : axis == plan::PP ? pp : 1;
          mask |= axis == plan::TP ? 4 : axis == plan::DP ? 2 : axis == plan::PP ? 1 : 0;
          over += (over.empty() ? "" : "+") + std::string(nameOf(plan::MeshAxis(axis)));
        }
        std::string kind(nameOf(cv.kind()));
        std::replace(kind.begin(), kind.end(), '_', '-');
        CompiledVolume &v = compiled[kind + " over " + over];
        v.calls += cv.calls() * times;
        v.bytes +=
            ringBytes(cv.kind(), static_cast<double>(cv.bytes()), n) * static_cast<double>(times);
        v.mask = mask;
      }
    }
  return compiled;
}

/// The collectives of the stage whose first rank is `first` by link: the
/// data-parallel reduction, the tied copies' all-reduce (the first and the
/// last stage), sequence-parallel gradient sums and the compiled ones.
void addCollectiveLinks(LinkTraffic &links, int64_t first, const std::array<int64_t, 3> &mesh,
                        int64_t lastStageRank, double dpBytes, int64_t tied, int64_t partial,
                        const std::map<std::string, CompiledVolume> &compiled) {
  auto [pp, dp, tp] = mesh;
  links.add("data-parallel", meshGroup(first, pp, dp, tp, 2), dpBytes);
  links.add("tied-embedding", {first, 0, lastStageRank}, static_cast<double>(tied));
  if (partial)
    links.add("sequence-parallel gradients", meshGroup(first, pp, dp, tp, 4),
              ringBytes(plan::CollectiveVolume::ALL_REDUCE, static_cast<double>(partial), tp));
  for (auto &[what, volume] : compiled)
    links.add(what, meshGroup(first, pp, dp, tp, volume.mask), volume.bytes);
}

/// Bytes of virtual stage k's gradients reduced besides the data-parallel
/// ones: sequence-parallel partial sums (`partial`) and tied copies (`tied`).
void addSharedGradientBytes(const plan::Plan &plan, int64_t k,
                            std::map<std::string, const plan::Parameter *> &byName,
                            std::map<std::string, int> &holders, int64_t tp, int64_t &partial,
                            int64_t &tied) {
  if (plan.stages_size())
    for (const plan::StageParameter &sp : plan.stages(static_cast<int>(k)).parameters()) {
      const plan::Parameter *p = byName[sp.name()];
      if (p->grad_partial_over_size()) {
        int64_t n = 1;
        for (int i = 0; i < p->shape_size(); ++i)
          n *= (i == 0 && sp.layer_end() > 0) ? sp.layer_end() - sp.layer_begin() : p->shape(i);
        partial += n * dtypeBytes(p->dtype());
      }
      if (sp.layer_end() == 0 && holders[sp.name()] > 1) {
        const plan::Parameter *p = byName[sp.name()];
        int64_t n = 1;
        for (int64_t d : p->shape())
          n *= d;
        tied += n * dtypeBytes(p->dtype()) / shardsOf(*p, tp);
      }
    }
  else
    for (const plan::Parameter &p : plan.parameters())
      if (p.grad_partial_over_size()) {
        int64_t n = 1;
        for (int64_t d : p.shape())
          n *= d;
        partial += n * dtypeBytes(p.dtype());
      }
}

bool parallelReport(const plan::Plan &plan, std::string &out, std::string &error,
                    int64_t gpusPerNode) {
  const plan::Config &c = plan.config();
  const plan::Parallelism &par = c.parallel();
  int64_t pp = std::max<int64_t>(par.pipeline_parallel_size(), 1);
  int64_t dp = std::max<int64_t>(par.data_parallel_size(), 1);
  int64_t tp = std::max<int64_t>(par.tensor_parallel_size(), 1);
  int64_t v = std::max<int64_t>(par.virtual_stages(), 1);
  int64_t stages = plan.stages_size() ? plan.stages_size() : 1;
  if (stages != pp * v) {
    error = "the plan has " + std::to_string(stages) + " stages for pp " + std::to_string(pp) +
            " x virtual " + std::to_string(v);
    return false;
  }
  int64_t micro = c.global_batch_size() / std::max<int64_t>(c.micro_batch_size() * dp, 1);
  std::map<std::string, const plan::Parameter *> byName;
  for (const plan::Parameter &p : plan.parameters())
    byName[p.name()] = &p;

  // Bytes each virtual stage holds, and the activation it passes on.
  std::vector<int64_t> paramBytes;
  if (!stageParameterBytes(plan, paramBytes, error))
    return false;
  std::vector<int64_t> actBytes(static_cast<size_t>(stages), 0);
  std::map<std::string, int> holders;
  for (int64_t k = 0; k < stages; ++k) {
    if (plan.stages_size())
      for (const plan::StageParameter &sp : plan.stages(static_cast<int>(k)).parameters())
        if (sp.layer_end() == 0)
          ++holders[sp.name()];
    for (const plan::Function &f : plan.functions())
      if (f.stage() == k && f.role() == plan::Function::FORWARD)
        for (const plan::TensorSpec &o : f.outputs())
          if (o.name().find("act_out") != std::string::npos)
            actBytes[static_cast<size_t>(k)] = elementsOf(o) * dtypeBytes(o.dtype());
  }

  std::ostringstream r;
  r << "parallel layout: " << pp * dp * tp << " ranks = pp " << pp << " x dp " << dp << " x tp "
    << tp;
  if (v > 1)
    r << ", " << v << " virtual stages per pipeline rank";
  r << "; " << micro << " micro-batches per data-parallel rank and step"
    << (par.distributed_optimizer() ? "; distributed optimizer" : "") << "\n";
  if (pp > 1) {
    std::string line;
    if (!bubbleLine(pp, v, micro, line, error))
      return false;
    r << line;
  }
  r << "per rank (every data-parallel rank of a pipeline stage alike):\n";
  for (int64_t s = 0; s < pp; ++s) {
    int64_t params = 0, p2p = 0, tied = 0, partial = 0;
    std::string held;
    // The stage's first rank; its pipeline peers share its dp and tp place.
    int64_t first = s * dp * tp;
    LinkTraffic links(std::max<int64_t>(gpusPerNode, 1));
    auto stageRank = [&](int64_t k) { return (k % pp) * dp * tp; };
    for (int64_t k = s; k < stages; k += pp) {
      params += paramBytes[static_cast<size_t>(k)];
      held += (held.empty() ? "" : ", ") + std::to_string(k);
      // Forward activations out and gradients back, per micro-batch.
      if (k + 1 < stages) {
        p2p += actBytes[static_cast<size_t>(k)] * micro;
        links.add("pipeline send/recv", {first, stageRank(k + 1)},
                  static_cast<double>(actBytes[static_cast<size_t>(k)] * micro));
      }
      if (k > 0) {
        p2p += actBytes[static_cast<size_t>(k - 1)] * micro;
        links.add("pipeline send/recv", {first, stageRank(k - 1)},
                  static_cast<double>(actBytes[static_cast<size_t>(k - 1)] * micro));
      }
      addSharedGradientBytes(plan, k, byName, holders, tp, partial, tied);
    }
    // Ring-equivalent volumes: all-reduce 2(n-1)/n, reduce-scatter and
    // all-gather (n-1)/n of the buffer.
    double ring = static_cast<double>(dp - 1) / static_cast<double>(dp);
    double dpBytes = 2 * ring * static_cast<double>(params); // the same for both schemes
    double optimizerState = 2.0 * static_cast<double>(params) /
                            static_cast<double>(par.distributed_optimizer() ? dp : 1);
    std::map<std::string, CompiledVolume> compiled =
        compiledCollectives(plan, s, pp, dp, tp, micro);
    addCollectiveLinks(links, first, {pp, dp, tp}, stageRank(stages - 1), dpBytes, tied, partial,
                       compiled);
    r << "  pipeline stage " << s << " (virtual stages " << held << "): parameters "
      << megabytes(static_cast<double>(params)) << ", gradients "
      << megabytes(static_cast<double>(params)) << ", optimizer state " << megabytes(optimizerState)
      << "\n";
    r << "    sends per step: pipeline send/recv " << megabytes(static_cast<double>(p2p))
      << ", data-parallel "
      << (par.distributed_optimizer() ? "reduce-scatter + all-gather " : "all-reduce ")
      << megabytes(dpBytes) << ", tied-embedding all-reduce "
      << megabytes(static_cast<double>(tied));
    if (partial)
      r << ", sequence-parallel gradient all-reduce over tp "
        << megabytes(
               ringBytes(plan::CollectiveVolume::ALL_REDUCE, static_cast<double>(partial), tp));
    r << "\n";
    if (!compiled.empty()) {
      double total = 0;
      r << "    collectives in the compiled step:";
      const char *sep = " ";
      for (auto &[what, volume] : compiled) {
        r << sep << what << " " << megabytes(volume.bytes) << " (" << volume.calls << " calls)";
        sep = ", ";
        total += volume.bytes;
      }
      r << "; total " << megabytes(total) << "\n";
    }
    if (gpusPerNode > 0)
      r << "    by link, " << gpusPerNode << " GPUs a node: " << links.describe() << "\n";
  }
  out = r.str();
  return true;
}

} // namespace mt
