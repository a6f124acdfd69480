//===- LayoutEstimate.cpp - a layout's memory and step time -----------------===//
#include "mt/Search/LayoutEstimate.h"

#include "mt/Plan/LinkTraffic.h"
#include "mt/Schedule/PipelineSchedule.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace mt {

namespace {

template <typename F> StageFacts fieldwise(const StageFacts &a, const StageFacts &b, F f) {
  StageFacts r;
  r.resident = f(a.resident, b.resident);
  r.residentDistributed = f(a.residentDistributed, b.residentDistributed);
  r.optimizerSharded = f(a.optimizerSharded, b.optimizerSharded);
  r.parameterBytes = f(a.parameterBytes, b.parameterBytes);
  r.arena = f(a.arena, b.arena);
  r.stash = f(a.stash, b.stash);
  r.sendBytes = f(a.sendBytes, b.sendBytes);
  r.forward = f(a.forward, b.forward);
  r.backward = f(a.backward, b.backward);
  r.optimizer = f(a.optimizer, b.optimizer);
  r.communication = f(a.communication, b.communication);
  r.kernels = f(a.kernels, b.kernels);
  r.work = f(a.work, b.work);
  r.optimizerWork = f(a.optimizerWork, b.optimizerWork);
  r.forwardFlops = f(a.forwardFlops, b.forwardFlops);
  r.executedFlops = f(a.executedFlops, b.executedFlops);
  return r;
}

std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

} // namespace

StageFacts &StageFacts::operator+=(const StageFacts &o) {
  *this = fieldwise(*this, o, [](double a, double b) { return a + b; });
  return *this;
}
StageFacts StageFacts::operator-(const StageFacts &o) const {
  return fieldwise(*this, o, [](double a, double b) { return a - b; });
}
StageFacts StageFacts::operator*(double k) const {
  return fieldwise(*this, *this, [k](double a, double) { return a * k; });
}

bool StageModel::build(const std::vector<StageFacts> &probe, std::string &error) {
  if (probe.size() != 4) {
    error = "the probe compile has " + std::to_string(probe.size()) + " stages, not 4";
    return false;
  }
  // Stages of 1, 2, 1, 1 layers: the second less the third is one layer.
  perLayer_ = probe[1] - probe[2];
  middle_ = probe[2] - perLayer_;
  first_ = probe[0] - perLayer_;
  last_ = probe[3] - perLayer_;
  return true;
}

StageFacts StageModel::stage(int64_t layers, bool first, bool last) const {
  StageFacts s = first && last ? first_ - middle_ : first ? first_ : last ? last_ : middle_;
  if (first && last)
    s += last_;
  s += perLayer_ * static_cast<double>(layers);
  if (first && last) {
    // One stage keeps nothing between calls: what the backward reads lives
    // in the step's arena.
    s.arena += s.stash;
    s.stash = 0;
    s.sendBytes = 0;
  }
  return s;
}

bool priceProbe(const std::vector<ProbeStage> &one, const std::vector<ProbeStage> &two, int64_t m,
                const Cluster &cluster, int64_t tp, StageModel &model, std::string &error) {
  if (one.size() != two.size()) {
    error = "the probe compiles differ in their stages";
    return false;
  }
  // Tensor-parallel groups are blocks of tp consecutive ranks however the
  // rest is laid out: some straddle nodes when tp does not divide a node.
  MeshLinks mesh = meshLinks(cluster, 1, std::max<int64_t>(cluster.gpus / tp, 1), tp);
  double t = static_cast<double>(m);
  auto at = [t](double a, double b) { return a + (b - a) * (t - 1); };
  std::vector<StageFacts> facts;
  for (size_t k = 0; k < one.size(); ++k) {
    const ProbeStage &a = one[k], &b = two[k];
    StageFacts f;
    f.resident = at(a.resident, b.resident);
    // The batch-sized buffers grow alike with the distributed optimizer.
    f.residentDistributed = a.distributedWhole + f.resident - a.resident;
    f.optimizerSharded = a.distributedSharded;
    f.parameterBytes = a.parameterBytes;
    f.arena = at(a.arena, b.arena);
    f.stash = at(a.stash, b.stash);
    f.sendBytes = at(a.sendBytes, b.sendBytes);
    std::vector<OpRecord> forward, step, optimizer;
    if (!recordsAt(a.forward, b.forward, t, forward) ||
        !recordsAt(a.trainStep, b.trainStep, t, step) ||
        !recordsAt(a.optimizer, b.optimizer, t, optimizer)) {
      error = "the probe compiles at micro-batch sizes 1 and 2 differ in their ops";
      return false;
    }
    FunctionCost fc = costOf(forward, cluster.chip, mesh);
    FunctionCost sc = costOf(step, cluster.chip, mesh);
    bool last = k + 1 == one.size();
    // Forward and backward apart, so that stages add up by layers: the last
    // stage's step computes its forward again, its backward is the rest.
    f.forward = fc.seconds;
    f.backward = last ? std::max(sc.seconds - fc.seconds, 0.0) : sc.seconds;
    FunctionCost oc = costOf(optimizer, cluster.chip, mesh);
    f.optimizer = oc.seconds;
    f.optimizerWork = oc.machine;
    f.work = (last ? 0 : fc.machine) + sc.machine;
    f.communication = (last ? 0 : fc.communication) + sc.communication;
    f.kernels = (last ? 0 : fc.kernels) + sc.kernels;
    f.forwardFlops = fc.forwardFlops;
    f.executedFlops = (last ? 0 : fc.contractionFlops) + sc.contractionFlops;
    facts.push_back(f);
  }
  model.lastKeeps = !one.empty() && one.back().keeps;
  return model.build(facts, error);
}

namespace {

struct RankMemory {
  double resident = 0, arena = 0, saved = 0, inputs = 0;
  int64_t sets = 0;
  double peak() const { return resident + arena + saved + inputs; }
};

/// Seconds for virtual stage k's output to reach stage k + 1.
double sendSeconds(const Layout &l, const Cluster &cluster, int64_t k, double bytes) {
  int64_t from = (k % l.pp) * l.dp * l.tp, to = ((k + 1) % l.pp) * l.dp * l.tp;
  LinkSpec link = cluster.ringLink({from, to});
  return link.latency + bytes / link.bandwidth;
}

void explain(std::ostringstream &r, const Layout &l, const std::vector<StageFacts> &facts,
             const std::vector<int64_t> &split, const StageTimes &times) {
  size_t v = facts.size();
  for (size_t k = 0; k < v;) {
    size_t end = k + 1;
    auto same = [&](size_t a, size_t b) {
      return split[a] == split[b] && times.forward[a] == times.forward[b] &&
             times.backward[a] == times.backward[b] && times.send[a] == times.send[b];
    };
    while (end < v && same(k, end))
      ++end;
    r << "  virtual stage" << (end - k > 1 ? "s " : " ") << k
      << (end - k > 1 ? "-" + std::to_string(end - 1) : "") << " (" << split[k] << " layer"
      << (split[k] == 1 ? "" : "s") << (end - k > 1 ? " each" : "")
      << "), per micro-batch: forward " << ms(times.forward[k]) << ", backward "
      << ms(times.backward[k]) << " (kernels " << ms(facts[k].kernels)
      << ", tensor-parallel collectives " << ms(facts[k].communication)
      << (l.tp > 1 ? "" : ": none") << "), send to the next " << ms(times.send[k]) << "\n";
    k = end;
  }
}

/// The breakdown --explain prints.
std::string explanation(const Layout &l, const Cluster &cluster,
                        const std::vector<StageFacts> &facts, const std::vector<int64_t> &split,
                        const StageTimes &times, int64_t m, double busiest, double shared,
                        bool sharedBound, const std::string &dpLine,
                        const std::vector<RankMemory> &memory, const LayoutEstimate &out) {
  std::ostringstream r;
  r << "layout " << l.flags() << ":\n";
  explain(r, l, facts, split, times);
  char line[320];
  std::snprintf(line, sizeof line,
                "  pipeline: %lld micro-batches, %s (the busiest rank computes %s of it: bubble "
                "and waits %.1f%%)\n",
                static_cast<long long>(m), ms(out.pipeline).c_str(), ms(busiest).c_str(),
                100.0 * (out.pipeline - busiest) / out.pipeline);
  r << line << dpLine << "  optimizer: " << ms(out.optimizer) << "\n";
  if (cluster.chip.cores > 0)
    r << "  all ranks' work on the " << cluster.chip.cores << " cores they share: " << ms(shared)
      << (sharedBound ? ", more than the schedule's time: the step\n" : "\n");
  std::snprintf(line, sizeof line,
                "  step: %s; %.0f tokens/s, MFU %.1f%%, %.1f TFLOP/s per GPU with "
                "recomputation\n",
                ms(out.step).c_str(), out.tokensPerSecond, 100 * out.mfu, out.flopsPerGpu / 1e12);
  r << line;
  size_t fullest =
      static_cast<size_t>(std::max_element(out.peak.begin(), out.peak.end()) - out.peak.begin());
  const RankMemory &mem = memory[fullest];
  r << "  memory (estimate), fullest pipeline stage " << fullest << ": " << bytesText(mem.peak())
    << " = buffers " << bytesText(mem.resident) << " + arena " << bytesText(mem.arena)
    << " + saved sets " << bytesText(mem.saved) << " (" << mem.sets << " in flight)";
  if (mem.inputs > 0)
    r << " + stage inputs " << bytesText(mem.inputs);
  r << "; " << bytesText(static_cast<double>(cluster.usableBytes()))
    << " usable: " << (out.fits ? "fits" : "does not fit") << "\n";
  return r.str();
}

} // namespace

bool estimateLayout(const Layout &l, const StageModel &model, const Cluster &cluster,
                    int64_t layers, int64_t globalBatch, int64_t tokensPerSequence,
                    double peakFlops, LayoutEstimate &out, std::string &error) {
  out = LayoutEstimate();
  int64_t v = l.pp * l.virtualStages, m = l.microBatches(globalBatch);
  std::vector<int64_t> split = splitLayers(layers, v);
  if (split.empty() || m < 1) {
    error = "the layout does not divide the layers or the batch";
    return false;
  }
  std::vector<StageFacts> facts;
  for (int64_t k = 0; k < v; ++k)
    facts.push_back(model.stage(split[static_cast<size_t>(k)], k == 0, k + 1 == v));
  PipelineSchedule schedule = l.virtualStages > 1
                                  ? scheduleInterleaved(l.pp, l.virtualStages, m, error)
                                  : schedule1F1B(l.pp, m);
  if (schedule.empty())
    return false;

  // The step: the schedule with each stage's times and its sends' delays.
  StageTimes times;
  for (int64_t k = 0; k < v; ++k) {
    const StageFacts &f = facts[static_cast<size_t>(k)];
    bool last = k + 1 == v;
    // The last stage's forward is the first half of its training step.
    times.forward.push_back(last ? 0 : f.forward);
    times.backward.push_back(last ? f.forward + f.backward : f.backward);
    times.send.push_back(last ? 0 : sendSeconds(l, cluster, k, f.sendBytes));
  }
  if (!simulateStageTimes(schedule, l.virtualStages, m, times, out.pipeline, error))
    return false;

  // Per pipeline rank: memory, and what follows the pipeline.
  MeshLinks mesh = meshLinks(cluster, l.pp, l.dp, l.tp);
  std::vector<RankMemory> memory(static_cast<size_t>(l.pp));
  double after = 0, busiest = 0;
  // Shared cores (CPU rank threads): every rank's work in machine seconds.
  double shared = 0;
  std::string dpLine;
  for (int64_t s = 0; s < l.pp; ++s) {
    RankMemory &mem = memory[static_cast<size_t>(s)];
    double grads = 0, optimizer = 0, busy = 0;
    for (int64_t k = s; k < v; k += l.pp) {
      const StageFacts &f = facts[static_cast<size_t>(k)];
      mem.resident += l.distributedOptimizer
                          ? f.residentDistributed + f.optimizerSharded / static_cast<double>(l.dp)
                          : f.resident;
      mem.arena = std::max(mem.arena, f.arena);
      bool keeps = k + 1 < v || model.lastKeeps;
      if (v > 1) {
        int64_t inFlight = mostInFlight(schedule, s, k / l.pp);
        (keeps ? mem.saved : mem.inputs) += static_cast<double>(inFlight) * f.stash;
        mem.sets += keeps ? inFlight : 0;
      }
      grads += f.parameterBytes;
      optimizer += f.optimizer;
      shared += (static_cast<double>(m) * f.work +
                 f.optimizerWork / static_cast<double>(l.distributedOptimizer ? l.dp : 1)) *
                static_cast<double>(l.dp * l.tp);
      busy += static_cast<double>(m) *
              (times.forward[static_cast<size_t>(k)] + times.backward[static_cast<size_t>(k)]);
    }
    if (l.distributedOptimizer)
      optimizer /= static_cast<double>(l.dp);
    // The data-parallel reduction of fp32 gradients: an all-reduce overlapped
    // with the last backward, or (distributed optimizer) a reduce-scatter
    // and the parameters' all-gather, both after it.
    const LinkSpec &link = mesh.links[1];
    double reduce = collectiveSeconds(CollectiveKind::AllReduce, grads, l.dp, link);
    double exposed = l.distributedOptimizer
                         ? reduce
                         : std::max(0.0, reduce - times.backward[static_cast<size_t>(s)]);
    if (s == 0)
      dpLine = "  data-parallel reduction of " + bytesText(grads) + " of gradients over " +
               std::to_string(l.dp) + " ranks: " + ms(reduce) + ", " + ms(exposed) +
               (l.distributedOptimizer
                    ? " exposed (reduce-scatter and all-gather after the pipeline)"
                    : " exposed (all-reduce beside the last micro-batch's backward)") +
               " [pipeline stage 0]\n";
    out.dataParallel = std::max(out.dataParallel, exposed);
    out.optimizer = std::max(out.optimizer, optimizer);
    after = std::max(after, exposed + optimizer);
    busiest = std::max(busiest, busy);
    out.peak.push_back(mem.peak());
  }
  out.idealPipeline = busiest;
  out.step = out.pipeline + after;
  bool sharedBound = cluster.chip.cores > 0 && shared > out.step;
  if (sharedBound)
    out.step = shared;
  out.mostBytes = *std::max_element(out.peak.begin(), out.peak.end());
  out.fits = out.mostBytes <= static_cast<double>(cluster.usableBytes());
  double modelFlops = 0, executed = 0;
  for (const StageFacts &f : facts) {
    modelFlops += 3 * f.forwardFlops;
    executed += f.executedFlops;
  }
  double perStep = static_cast<double>(m * l.dp * l.tp);
  double gpus = static_cast<double>(l.ranks());
  out.tokensPerSecond = static_cast<double>(globalBatch * tokensPerSequence) / out.step;
  out.mfu = modelFlops * perStep / (out.step * gpus * peakFlops);
  out.flopsPerGpu = executed * perStep / (out.step * gpus);

  out.explanation = explanation(l, cluster, facts, split, times, m, busiest, shared, sharedBound,
                                dpLine, memory, out);
  return true;
}

} // namespace mt
