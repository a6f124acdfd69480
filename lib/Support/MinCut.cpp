//===- MinCut.cpp - minimum s-t cut (Dinic) --------------------------------===//
#include "mt/Support/MinCut.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace mt {

namespace {
// Residual capacities below this are spent: sums of doubles round.
constexpr double kSpent = 1e-9;
} // namespace

size_t FlowGraph::addNode() {
  adjacent.emplace_back();
  return adjacent.size() - 1;
}

void FlowGraph::addEdge(size_t from, size_t to, double capacity) {
  if (from == to)
    return;
  adjacent[from].push_back({to, adjacent[to].size(), capacity});
  adjacent[to].push_back({from, adjacent[from].size() - 1, 0.0});
}

bool FlowGraph::levels(size_t source, size_t sink) {
  level.assign(adjacent.size(), -1);
  std::queue<size_t> queue;
  level[source] = 0;
  queue.push(source);
  while (!queue.empty()) {
    size_t node = queue.front();
    queue.pop();
    for (const Edge &e : adjacent[node])
      if (e.capacity > kSpent && level[e.to] < 0) {
        level[e.to] = level[node] + 1;
        queue.push(e.to);
      }
  }
  return level[sink] >= 0;
}

double FlowGraph::push(size_t node, size_t sink, double limit) {
  if (node == sink)
    return limit;
  for (size_t &i = next[node]; i < adjacent[node].size(); ++i) {
    Edge &e = adjacent[node][i];
    if (e.capacity <= kSpent || level[e.to] != level[node] + 1)
      continue;
    double pushed = push(e.to, sink, std::min(limit, e.capacity));
    if (pushed > 0) {
      e.capacity -= pushed;
      adjacent[e.to][e.reverse].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

double FlowGraph::minCut(size_t source, size_t sink, std::vector<bool> &sourceSide) {
  double flow = 0;
  while (levels(source, sink)) {
    next.assign(adjacent.size(), 0);
    while (double pushed = push(source, sink, infinity)) {
      // A path of infinite edges only: no finite cut exists.
      if (std::isinf(pushed))
        return infinity;
      flow += pushed;
    }
  }
  sourceSide.assign(adjacent.size(), false);
  for (size_t i = 0; i < adjacent.size(); ++i)
    sourceSide[i] = level[i] >= 0;
  return flow;
}

} // namespace mt
