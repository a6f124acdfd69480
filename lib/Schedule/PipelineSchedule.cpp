//===- PipelineSchedule.cpp - 1F1B and interleaved 1F1B --------------------===//
#include "mt/Schedule/PipelineSchedule.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace mt {

PipelineSchedule schedule1F1B(int64_t p, int64_t m) {
  PipelineSchedule schedule(p);
  for (int64_t s = 0; s < p; ++s) {
    int64_t warmup = std::min(p - s - 1, m), steady = m - warmup;
    auto &ops = schedule[s];
    for (int64_t i = 0; i < warmup; ++i)
      ops.push_back({PipelineOp::Forward, i, 0});
    for (int64_t i = 0; i < steady; ++i) {
      ops.push_back({PipelineOp::Forward, warmup + i, 0});
      ops.push_back({PipelineOp::Backward, i, 0});
    }
    for (int64_t i = steady; i < m; ++i)
      ops.push_back({PipelineOp::Backward, i, 0});
  }
  return schedule;
}

PipelineSchedule scheduleInterleaved(int64_t p, int64_t v, int64_t m, std::string &error) {
  if (p < 1 || v < 1 || m < 1 || m % p != 0) {
    error = "the interleaved schedule needs the number of micro-batches (" + std::to_string(m) +
            ") to be a multiple of the pipeline stages (" + std::to_string(p) + ")";
    return {};
  }
  int64_t total = m * v, group = p * v;
  // The k-th forward (or backward) of a stage works on chunk (k mod pv) / p
  // (reversed for backwards) and micro-batch (k / pv) * p + k mod p.
  auto forwardOp = [&](int64_t k) {
    return PipelineOp{PipelineOp::Forward, (k / group) * p + k % p, (k % group) / p};
  };
  auto backwardOp = [&](int64_t k) {
    return PipelineOp{PipelineOp::Backward, (k / group) * p + k % p, v - 1 - (k % group) / p};
  };
  PipelineSchedule schedule(p);
  for (int64_t s = 0; s < p; ++s) {
    int64_t warmup = m == p ? total : std::min((p - s - 1) * 2 + (v - 1) * p, total);
    int64_t steady = total - warmup;
    auto &ops = schedule[s];
    for (int64_t k = 0; k < warmup; ++k)
      ops.push_back(forwardOp(k));
    for (int64_t i = 0; i < steady; ++i) {
      ops.push_back(forwardOp(warmup + i));
      ops.push_back(backwardOp(i));
    }
    for (int64_t i = steady; i < total; ++i)
      ops.push_back(backwardOp(i));
  }
  return schedule;
}

bool simulate(const PipelineSchedule &schedule, int64_t v, int64_t m, double tf, double tb,
              SimulationResult &result, std::string &error) {
  int64_t p = static_cast<int64_t>(schedule.size());
  int64_t last = p * v - 1;
  // When each (kind, micro-batch, virtual stage) finished.
  std::map<std::tuple<int, int64_t, int64_t>, double> done;
  std::vector<size_t> next(p, 0);
  std::vector<double> free(p, 0.0);
  std::vector<int64_t> held(p, 0);
  result = SimulationResult();
  result.peakInFlight.assign(p, 0);
  size_t remaining = 0;
  for (const auto &ops : schedule) {
    remaining += ops.size();
    if (static_cast<int64_t>(ops.size()) != 2 * m * v) {
      error = "every stage must run each micro-batch's forward and backward once per chunk";
      return false;
    }
  }
  while (remaining > 0) {
    // Run, on some stage, the next op whose dependency is done; pick the
    // one that can start earliest so the timeline is as-soon-as-possible.
    int64_t best = -1;
    double bestStart = 0;
    for (int64_t s = 0; s < p; ++s) {
      if (next[s] == schedule[s].size())
        continue;
      const PipelineOp &op = schedule[s][next[s]];
      int64_t vs = op.chunk * p + s;
      std::tuple<int, int64_t, int64_t> dep;
      bool hasDep = true;
      if (op.kind == PipelineOp::Forward) {
        hasDep = vs > 0;
        dep = {PipelineOp::Forward, op.microBatch, vs - 1};
      } else {
        dep = vs < last ? std::make_tuple(int(PipelineOp::Backward), op.microBatch, vs + 1)
                        : std::make_tuple(int(PipelineOp::Forward), op.microBatch, vs);
      }
      double ready = free[s];
      if (hasDep) {
        auto it = done.find(dep);
        if (it == done.end())
          continue;
        ready = std::max(ready, it->second);
      }
      if (best < 0 || ready < bestStart) {
        best = s;
        bestStart = ready;
      }
    }
    if (best < 0) {
      error = "the schedule deadlocks: every stage waits for a pass no stage will run next";
      return false;
    }
    const PipelineOp &op = schedule[best][next[best]++];
    double duration = (op.kind == PipelineOp::Forward ? tf : tb) / static_cast<double>(v);
    double end = bestStart + duration;
    free[best] = end;
    done[{op.kind, op.microBatch, op.chunk * p + best}] = end;
    held[best] += op.kind == PipelineOp::Forward ? 1 : -1;
    result.peakInFlight[best] = std::max(result.peakInFlight[best], held[best]);
    result.timeline.push_back({best, op, bestStart, end});
    result.makespan = std::max(result.makespan, end);
    --remaining;
  }
  double ideal = static_cast<double>(m) * (tf + tb);
  result.bubbleFraction = (result.makespan - ideal) / ideal;
  return true;
}

bool simulateStageTimes(const PipelineSchedule &schedule, int64_t chunks, int64_t microBatches,
                        const StageTimes &times, double &makespan, std::string &error) {
  int64_t p = static_cast<int64_t>(schedule.size()), v = chunks, m = microBatches;
  size_t stages = static_cast<size_t>(p * v);
  if (p < 1 || times.forward.size() != stages || times.backward.size() != stages ||
      times.send.size() != stages) {
    error = "the stage times do not match the schedule's " + std::to_string(p * v) + " stages";
    return false;
  }
  // When each pass of (virtual stage, micro-batch) ended; -1: not yet.
  std::vector<double> forwardEnd(stages * static_cast<size_t>(m), -1.0),
      backwardEnd(forwardEnd.size(), -1.0);
  auto at = [&](int64_t k, int64_t mb) { return static_cast<size_t>(k * m + mb); };
  std::vector<size_t> next(static_cast<size_t>(p), 0);
  std::vector<double> free(static_cast<size_t>(p), 0.0);
  size_t remaining = 0;
  for (const auto &ops : schedule)
    remaining += ops.size();
  makespan = 0;
  // Each stage runs its ops in order, each once its input has arrived: sweep
  // the stages, advancing each as far as it can, until all are done.
  while (remaining > 0) {
    bool progressed = false;
    for (int64_t s = 0; s < p; ++s) {
      const std::vector<PipelineOp> &ops = schedule[static_cast<size_t>(s)];
      size_t &i = next[static_cast<size_t>(s)];
      for (; i < ops.size(); ++i) {
        const PipelineOp &op = ops[i];
        int64_t k = op.chunk * p + s;
        if (op.microBatch < 0 || op.microBatch >= m || k >= p * v) {
          error = "the schedule names a micro-batch or chunk out of range";
          return false;
        }
        double ready;
        if (op.kind == PipelineOp::Forward)
          ready = k == 0 ? 0 : forwardEnd[at(k - 1, op.microBatch)];
        else
          ready = k + 1 == p * v ? forwardEnd[at(k, op.microBatch)]
                                 : backwardEnd[at(k + 1, op.microBatch)];
        if (ready < 0)
          break;
        if (op.kind == PipelineOp::Forward && k > 0)
          ready += times.send[static_cast<size_t>(k - 1)];
        else if (op.kind == PipelineOp::Backward && k + 1 < p * v)
          ready += times.send[static_cast<size_t>(k)];
        double start = std::max(ready, free[static_cast<size_t>(s)]);
        double end =
            start + (op.kind == PipelineOp::Forward ? times.forward
                                                    : times.backward)[static_cast<size_t>(k)];
        free[static_cast<size_t>(s)] = end;
        (op.kind == PipelineOp::Forward ? forwardEnd : backwardEnd)[at(k, op.microBatch)] = end;
        makespan = std::max(makespan, end);
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) {
      error = "the schedule deadlocks: every stage waits for a pass no stage will run next";
      return false;
    }
  }
  return true;
}

int64_t mostInFlight(const PipelineSchedule &schedule, int64_t stage, int64_t chunk) {
  if (stage < 0 || stage >= static_cast<int64_t>(schedule.size()))
    return 0;
  int64_t held = 0, most = 0;
  for (const PipelineOp &op : schedule[static_cast<size_t>(stage)]) {
    if (op.chunk != chunk)
      continue;
    held += op.kind == PipelineOp::Forward ? 1 : -1;
    most = std::max(most, held);
  }
  return most;
}

std::vector<int64_t> splitLayers(int64_t layers, int64_t parts) {
  if (parts < 1 || layers < parts)
    return {};
  std::vector<int64_t> counts(static_cast<size_t>(parts), layers / parts);
  int64_t extra = layers % parts;
  // Middle stages first, then the first, then the last.
  std::vector<int64_t> order;
  for (int64_t s = 1; s + 1 < parts; ++s)
    order.push_back(s);
  order.push_back(0);
  if (parts > 1)
    order.push_back(parts - 1);
  for (int64_t i = 0; i < extra; ++i)
    ++counts[static_cast<size_t>(order[static_cast<size_t>(i)])];
  return counts;
}

} // namespace mt
