//===- LayoutSpace.cpp - the layouts a model and a batch allow ---------------===//
#include "mt/Search/LayoutSpace.h"

namespace mt {

const char *nameOf(RecomputeChoice choice) {
  switch (choice) {
  case RecomputeChoice::None:
    return "none";
  case RecomputeChoice::Selective:
    return "selective";
  case RecomputeChoice::Full:
    return "full";
  }
  return "none";
}

std::string Layout::flags() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string s = "--tp=" + n(tp) + " --pp=" + n(pp);
  if (virtualStages > 1)
    s += " --virtual-stages=" + n(virtualStages) + " --schedule=interleaved";
  s += " --dp=" + n(dp) + " --micro-batch-size=" + n(microBatch);
  if (tp > 1)
    s += sequenceParallel ? " --sp" : " --sp=false";
  if (distributedOptimizer)
    s += " --distributed-optimizer";
  s += std::string(" --recompute-granularity=") + nameOf(recompute);
  if (recompute == RecomputeChoice::Full)
    s += " --recompute-method=uniform --recompute-num-layers=1";
  return s;
}

std::string Layout::brief() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string s = "tp " + n(tp) + " pp " + n(pp);
  if (virtualStages > 1)
    s += "x" + n(virtualStages);
  s += " dp " + n(dp) + " mbs " + n(microBatch);
  if (sequenceParallel)
    s += " sp";
  if (distributedOptimizer)
    s += " dist-opt";
  if (recompute != RecomputeChoice::None)
    s += std::string(" rc=") + nameOf(recompute);
  return s;
}

namespace {

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

bool allowed(int64_t fixed, int64_t value) { return fixed == 0 || fixed == value; }

std::vector<bool> choices(std::optional<bool> fixed, bool meaningful) {
  if (!meaningful)
    return {false};
  if (fixed)
    return {*fixed};
  return {false, true};
}

} // namespace

std::vector<Layout> enumerateLayouts(const LayoutBounds &b) {
  std::vector<Layout> out;
  std::vector<RecomputeChoice> recomputes = {RecomputeChoice::None, RecomputeChoice::Selective,
                                             RecomputeChoice::Full};
  if (b.recompute)
    recomputes = {*b.recompute};
  for (int64_t tp : divisorsOf(b.gpus)) {
    if (!allowed(b.tp, tp))
      continue;
    for (int64_t pp : divisorsOf(b.gpus / tp)) {
      int64_t dp = b.gpus / (tp * pp);
      if (pp > b.layers || !allowed(b.pp, pp) || !allowed(b.dp, dp) || b.globalBatch % dp != 0)
        continue;
      for (int64_t mbs : divisorsOf(b.globalBatch / dp)) {
        if (mbs > b.maxMicroBatch || !allowed(b.microBatch, mbs))
          continue;
        int64_t micro = b.globalBatch / (dp * mbs);
        std::vector<int64_t> chunks = {1};
        for (int64_t v = 2; pp > 1 && pp * v <= b.layers; ++v)
          if (b.layers % (pp * v) == 0 && micro % pp == 0)
            chunks.push_back(v);
        for (int64_t v : chunks) {
          if (!allowed(b.virtualStages, v))
            continue;
          for (bool sp : choices(b.sequenceParallel, tp > 1))
            for (bool distopt : choices(b.distributedOptimizer, dp > 1))
              for (RecomputeChoice rc : recomputes) {
                Layout l;
                l.tp = tp;
                l.pp = pp;
                l.virtualStages = v;
                l.dp = dp;
                l.microBatch = mbs;
                l.sequenceParallel = sp;
                l.distributedOptimizer = distopt;
                l.recompute = rc;
                out.push_back(l);
              }
        }
      }
    }
  }
  return out;
}

} // namespace mt
