//===- MinCut.h - minimum s-t cut of a small directed graph ----*- C++ -*-===//
//
// Choosing which activations to keep and which to recompute is a minimum
// cut (the recompute planner in mt-recompute-activations builds the graph).
// Plain C++, so the algorithm is unit-tested on its own.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SUPPORT_MINCUT_H
#define MT_SUPPORT_MINCUT_H

#include <cstddef>
#include <limits>
#include <vector>

namespace mt {

/// A directed graph with non-negative capacities; `infinity` marks an edge
/// no cut may take.
class FlowGraph {
public:
  static constexpr double infinity = std::numeric_limits<double>::infinity();

  explicit FlowGraph(size_t nodes) : adjacent(nodes) {}

  size_t size() const { return adjacent.size(); }
  size_t addNode();
  void addEdge(size_t from, size_t to, double capacity);

  /// Computes a minimum cut between `source` and `sink` (Dinic's maximum
  /// flow). Returns its capacity (infinity when every cut takes an infinite
  /// edge) and, in `sourceSide`, the nodes still reachable from the source
  /// in the residual graph: the smallest source side of a minimum cut.
  double minCut(size_t source, size_t sink, std::vector<bool> &sourceSide);

private:
  struct Edge {
    size_t to;
    size_t reverse; // index of the reverse edge in adjacent[to]
    double capacity;
  };
  bool levels(size_t source, size_t sink);
  double push(size_t node, size_t sink, double limit);

  std::vector<std::vector<Edge>> adjacent;
  std::vector<int> level;
  std::vector<size_t> next;
};

} // namespace mt

#endif // MT_SUPPORT_MINCUT_H
