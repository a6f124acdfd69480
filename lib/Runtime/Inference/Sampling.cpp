//===- Sampling.cpp - choosing the next token from logits ------------------===//
#include "mt/Runtime/Inference/Sampling.h"

#include "mt/Runtime/Code/Initializer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace mt {

void penalizeRepetition(std::vector<float> &logits, const std::vector<int32_t> &seen,
                        double penalty) {
  if (penalty == 1.0)
    return;
  // Each seen token once, however often it was seen.
  for (int32_t id : std::set<int32_t>(seen.begin(), seen.end())) {
    if (id < 0 || static_cast<size_t>(id) >= logits.size())
      continue;
    float &l = logits[static_cast<size_t>(id)];
    l = l < 0 ? static_cast<float>(l * penalty) : static_cast<float>(l / penalty);
  }
}

Candidates candidatesOf(const std::vector<float> &logits, const SamplingOptions &o) {
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  size_t keep =
      o.topK > 0 ? std::min<size_t>(static_cast<size_t>(o.topK), order.size()) : order.size();
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    before);
  order.resize(keep);
  Candidates c;
  double top = logits[order.front()] / o.temperature, sum = 0;
  for (int32_t id : order) {
    double p = std::exp(logits[id] / o.temperature - top);
    c.ids.push_back(id);
    c.probs.push_back(p);
    sum += p;
  }
  for (double &p : c.probs)
    p /= sum;
  if (o.topP < 1.0) {
    // The smallest prefix whose probability reaches p; the first token always.
    double reached = 0;
    size_t n = 0;
    while (n < c.probs.size() && (n == 0 || reached < o.topP))
      reached += c.probs[n++];
    c.ids.resize(n);
    c.probs.resize(n);
    for (double &p : c.probs)
      p /= reached;
  }
  return c;
}

int32_t argmax(const std::vector<float> &logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

double uniformDraw(uint64_t seed, uint64_t step) {
  uint64_t bits = splitmix64(splitmix64(seed) ^ splitmix64(step + 0x9E3779B97F4A7C15ull));
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

int32_t drawFrom(const Candidates &c, double u) {
  double cumulative = 0;
  for (size_t i = 0; i < c.ids.size(); ++i) {
    cumulative += c.probs[i];
    if (u < cumulative)
      return c.ids[i];
  }
  return c.ids.back(); // u at the top of rounding
}

int32_t chooseToken(std::vector<float> logits, const std::vector<int32_t> &seen,
                    const SamplingOptions &o, uint64_t step) {
  penalizeRepetition(logits, seen, o.repetitionPenalty);
  if (o.greedy)
    return argmax(logits);
  return drawFrom(candidatesOf(logits, o), uniformDraw(o.seed, step));
}

} // namespace mt
