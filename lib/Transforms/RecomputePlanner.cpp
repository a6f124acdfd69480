//===- RecomputePlanner.cpp - what to keep under a memory budget -----------===//
//
// The forward graph of a gradient function becomes a flow network (as in
// the min-cut partitioner of PyTorch's AOTAutograd, with the work of
// recomputation priced in), with two nodes per forward op, in and out:
//
//   source -> in   costs the op's work: cut when the backward recomputes it;
//   in -> out      costs lambda x the bytes of its results: cut when kept;
//   out -> sink    is infinite when a backward op reads a result: the
//                  backward needs it, kept or recomputed;
//   u.out -> v.in  is infinite for each operand: what is recomputed needs
//                  its operands, kept or recomputed.
//
// A minimum cut is the cheapest choice of kept and recomputed values at
// price lambda. Ops whose results another layer reads (a layer's input and
// output) are never recomputed: a layer keeps its input, as with Megatron's
// full recomputation, and each layer's recomputation stays a unit of its
// own. Ops that only forward their input (dropout at rate 0) follow the op
// they alias.
//
//===----------------------------------------------------------------------===//
#include "mt/Transforms/Recompute.h"

#include "mt/Analysis/ActivationMemory.h"
#include "mt/Analysis/ModelInfo.h"
#include "mt/Analysis/OpCost.h"
#include "mt/Dialect/MT/IR/MTOps.h"
#include "mt/Support/MinCut.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace mlir;

namespace mt {

namespace {

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

bool isAlias(Operation *op) {
  auto d = dyn_cast_or_null<DropoutOp>(op);
  return d && d.getRate().convertToDouble() == 0.0;
}

int64_t bytesOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return 0;
  return t.getNumElements() * storageBytes(t.getElementType());
}

/// The forward graph, built once per function.
struct ForwardGraph {
  std::vector<Operation *> ops;              // forward ops with activation results
  llvm::DenseMap<Operation *, size_t> index; // op -> position in ops
  std::vector<int64_t> flops, bytes;
  std::vector<bool> needed, pinned;
  std::vector<std::vector<size_t>> operands;   // node -> nodes it reads
  std::vector<Operation *> aliases;            // rate-0 dropouts
  llvm::DenseMap<Operation *, size_t> aliasOf; // alias -> node it forwards

  explicit ForwardGraph(func::FuncOp fn);
  /// The ops recomputed at price `lambda` (node indices, ascending).
  std::vector<size_t> cut(double lambda) const;
};

ForwardGraph::ForwardGraph(func::FuncOp fn) {
  llvm::DenseSet<Value> activation = activationValues(fn);
  Block &block = fn.getBody().front();
  auto nodeOf = [&](Value v) -> std::optional<size_t> {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto it = aliasOf.find(def); it != aliasOf.end())
      return it->second;
    if (auto it = index.find(def); it != index.end())
      return it->second;
    return std::nullopt;
  };
  for (Operation &op : block) {
    if (isBackward(&op) || op.getNumResults() == 0 ||
        !llvm::any_of(op.getResults(), [&](Value r) { return activation.contains(r); }))
      continue;
    if (isAlias(&op)) {
      if (auto source = nodeOf(op.getOperand(0))) {
        aliases.push_back(&op);
        aliasOf[&op] = *source;
      }
      continue;
    }
    size_t n = ops.size();
    index[&op] = n;
    ops.push_back(&op);
    flops.push_back(opFlops(&op));
    int64_t b = 0;
    for (Value r : op.getResults())
      if (activation.contains(r))
        b += bytesOf(r);
    bytes.push_back(b);
    needed.push_back(false);
    pinned.push_back(false);
    operands.emplace_back();
    for (Value v : op.getOperands())
      if (auto u = nodeOf(v))
        operands[n].push_back(*u);
  }
  // Readers, looking through aliases: the backward needs a node; another
  // layer's op pins it; a returned value is a buffer the runtime holds.
  auto visitUsers = [&](Operation *owner, size_t n, auto &self) -> void {
    for (Value r : owner->getResults())
      for (Operation *user : r.getUsers()) {
        if (aliasOf.count(user)) {
          self(user, n, self);
          continue;
        }
        if (isa<func::ReturnOp>(user)) {
          bytes[n] = 0;
          continue;
        }
        if (isBackward(user))
          needed[n] = true;
        if (layerOf(user) != layerOf(ops[n]))
          pinned[n] = true;
      }
  };
  for (size_t n = 0; n < ops.size(); ++n)
    visitUsers(ops[n], n, visitUsers);
}

std::vector<size_t> ForwardGraph::cut(double lambda) const {
  size_t count = ops.size();
  FlowGraph g(2 * count + 2);
  size_t source = 2 * count, sink = 2 * count + 1;
  for (size_t n = 0; n < count; ++n) {
    size_t in = 2 * n, out = 2 * n + 1;
    g.addEdge(source, in, pinned[n] ? FlowGraph::infinity : static_cast<double>(flops[n]));
    g.addEdge(in, out, lambda * static_cast<double>(bytes[n]));
    if (needed[n])
      g.addEdge(out, sink, FlowGraph::infinity);
    for (size_t u : operands[n])
      g.addEdge(2 * u + 1, in, FlowGraph::infinity);
  }
  std::vector<bool> sourceSide;
  g.minCut(source, sink, sourceSide);
  std::vector<size_t> recomputed;
  for (size_t n = 0; n < count; ++n)
    if (!sourceSide[2 * n])
      recomputed.push_back(n);
  return recomputed;
}

/// The units for recomputing `nodes` of `graph`, as ops of the function or
/// of a copy (`map`: original op -> copy). Each op is a unit of its own, so
/// its clone goes right before its own first backward reader; consumers
/// come first, so a clone that reads another recomputed op is rewired to
/// that op's clone, which then goes before it.
std::vector<RecomputeUnit> unitsFor(const ForwardGraph &graph, const std::vector<size_t> &nodes,
                                    const llvm::DenseMap<Operation *, Operation *> &map) {
  std::set<size_t> chosen(nodes.begin(), nodes.end());
  std::set<Operation *> members;
  for (size_t n : nodes)
    members.insert(graph.ops[n]);
  for (Operation *alias : graph.aliases)
    if (chosen.count(graph.aliasOf.lookup(alias)))
      members.insert(alias);
  std::vector<RecomputeUnit> units;
  if (graph.ops.empty())
    return units;
  for (Operation &op : llvm::reverse(*graph.ops.front()->getBlock()))
    if (members.count(&op))
      units.push_back(RecomputeUnit{map.empty() ? &op : map.lookup(&op)});
  return units;
}

} // namespace

RecomputeChoice planRecomputation(func::FuncOp grad, int64_t budget) {
  ForwardGraph graph(grad);
  RecomputeChoice best;
  std::vector<size_t> bestNodes;
  bool haveBest = false;
  std::set<std::vector<size_t>> tried;
  auto evaluate = [&](std::vector<size_t> nodes) {
    std::sort(nodes.begin(), nodes.end());
    if (!tried.insert(nodes).second)
      return;
    // Measure on a copy: apply, account, drop.
    func::FuncOp copy = grad.clone();
    llvm::DenseMap<Operation *, Operation *> map;
    for (auto [from, to] : llvm::zip(grad.getBody().front(), copy.getBody().front()))
      map[&from] = &to;
    int64_t flops = 0;
    for (const RecomputeUnit &unit : unitsFor(graph, nodes, map))
      flops += recomputeUnit(unit);
    int64_t peak = analyzeActivations(copy).peakBytes;
    copy.erase();
    bool fits = peak <= budget;
    bool better =
        !haveBest || (fits && !best.fits) ||
        (fits == best.fits &&
         (fits ? flops < best.flops || (flops == best.flops && peak < best.peakBytes)
               : peak < best.peakBytes || (peak == best.peakBytes && flops < best.flops)));
    if (better) {
      haveBest = true;
      best.flops = flops;
      best.peakBytes = peak;
      best.fits = fits;
      bestNodes = nodes;
    }
  };

  // The cuts, from nearly free memory to nearly free work: a kept byte
  // against 2^-20 ... 2^40 operations covers elementwise ops (an operation
  // per element of one to eight bytes) to contractions deep in k.
  std::vector<std::vector<size_t>> cuts;
  for (int step = -40; step <= 80; ++step) {
    double lambda = step == -40 ? 0.0 : std::ldexp(1.0, step / 2) * (step % 2 ? M_SQRT2 : 1.0);
    std::vector<size_t> nodes = graph.cut(lambda);
    if (cuts.empty() || cuts.back() != nodes)
      cuts.push_back(nodes);
    evaluate(nodes);
  }
  // One price for every layer gives few plans; between two neighbouring
  // cuts, the first or last layers can take the dearer one (the peak sits
  // where the backward reaches the layers that keep the most).
  std::set<std::optional<int64_t>> layerSet;
  for (Operation *op : graph.ops)
    layerSet.insert(layerOf(op));
  std::vector<std::optional<int64_t>> layers(layerSet.begin(), layerSet.end());
  for (size_t c = 0; c + 1 < cuts.size(); ++c)
    for (size_t j = 1; j < layers.size(); ++j)
      for (bool prefix : {true, false}) {
        std::set<std::optional<int64_t>> dearer(prefix ? layers.begin() : layers.end() - j,
                                                prefix ? layers.begin() + j : layers.end());
        std::vector<size_t> mixed;
        for (size_t n : cuts[c])
          if (!dearer.count(layerOf(graph.ops[n])))
            mixed.push_back(n);
        for (size_t n : cuts[c + 1])
          if (dearer.count(layerOf(graph.ops[n])))
            mixed.push_back(n);
        evaluate(mixed);
      }
  best.cutsTried = static_cast<int64_t>(tried.size());
  best.units = unitsFor(graph, bestNodes, llvm::DenseMap<Operation *, Operation *>());
  for (const RecomputeUnit &unit : best.units)
    recomputeUnit(unit);
  return best;
}

} // namespace mt
