//===- OutlineLayers.cpp - identical layers compiled once, called per layer ===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <queue>

namespace mt {
#define GEN_PASS_DEF_OUTLINELAYERSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// One layer's ops of a function, in program order.
struct LayerGroup {
  int64_t layer = 0;
  SmallVector<Operation *> ops;
  llvm::SmallPtrSet<Operation *, 32> members;
  // Filled when the group is outlined.
  SmallVector<Value> inputs, outputs;
  std::optional<int64_t> slot; // its index in the stacked tensors
  bool keyed = false;          // draws dropout masks
  func::FuncOp callee;
};

bool isTrainingFunction(func::FuncOp fn) {
  std::optional<FunctionRole> role = roleOf(fn);
  return role && !fn.isExternal() &&
         llvm::is_contained({FunctionRole::forward, FunctionRole::train_step, FunctionRole::eval},
                            *role);
}

/// The stacked-tensor index an op of a group reads or writes at, if any.
std::optional<int64_t> slotOf(Operation *op) {
  if (auto slice = dyn_cast<SliceLayerOp>(op))
    return slice.getLayerAttr().getInt();
  if (auto insert = dyn_cast<InsertLayerOp>(op))
    return insert.getLayerAttr().getInt();
  return std::nullopt;
}

/// Whether every operand of `op` is a constant or a result of group `g`'s
/// ops.
bool fedByGroup(Operation &op, int g, const DenseMap<Operation *, int> &groupOf) {
  return llvm::all_of(op.getOperands(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    auto it = groupOf.find(def);
    return (it != groupOf.end() && it->second == g) || matchPattern(def, m_Constant());
  });
}

/// A slice of a stacked tensor that several groups read becomes one slice
/// per group (a view: free), so each group reads the stacked tensor whole
/// rather than a slice passed in (copied at the call: a function's
/// arguments have the identity layout).
void sliceForEachGroup(Block &body, const DenseMap<Operation *, int> &groupOf) {
  for (auto slice : llvm::make_early_inc_range(body.getOps<SliceLayerOp>())) {
    if (groupOf.count(slice))
      continue;
    llvm::MapVector<int, SmallVector<OpOperand *>> byGroup;
    for (OpOperand &use : slice->getUses()) {
      Operation *top = body.findAncestorOpInBlock(*use.getOwner());
      auto it = top ? groupOf.find(top) : groupOf.end();
      byGroup[it == groupOf.end() ? -1 : it->second].push_back(&use);
    }
    if (byGroup.size() < 2)
      continue;
    OpBuilder b(slice->getContext());
    b.setInsertionPointAfter(slice);
    for (auto &[group, uses] : byGroup) {
      if (group < 0)
        continue;
      Operation *copy = b.clone(*slice);
      for (OpOperand *use : uses)
        use->set(copy->getResult(0));
    }
    if (slice->use_empty())
      slice->erase();
  }
}

/// The ops of `body` by layer, a layer's forward and backward apart: those
/// marked `mt.layer`, and then, walking back, every unmarked op that only
/// one group uses and that reads a stacked tensor (a slice of a parameter
/// or accumulator) or only that group's values (a collective between its
/// ops). Ops that signal the runtime and results of no one stay outside.
std::vector<LayerGroup> groupByLayer(Block &body, DenseMap<Operation *, int> &groupOf) {
  std::vector<LayerGroup> groups;
  std::map<std::pair<int64_t, bool>, int> byLayer;
  for (Operation &op : body.without_terminator())
    if (auto layer = op.getAttrOfType<IntegerAttr>(kLayerAttrName)) {
      auto key = std::make_pair(layer.getInt(), op.hasAttr(kBackwardAttrName));
      auto [it, fresh] = byLayer.try_emplace(key, static_cast<int>(groups.size()));
      if (fresh)
        groups.push_back(LayerGroup{layer.getInt()});
      groupOf[&op] = it->second;
    }
  sliceForEachGroup(body, groupOf);
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (groupOf.count(&op) || op.getNumResults() == 0 || op.getNumRegions() ||
        isa<GradientReadyOp>(op) || matchPattern(&op, m_Constant()))
      continue;
    std::optional<int> only;
    bool one = !op.use_empty();
    for (Operation *user : op.getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      auto it = top ? groupOf.find(top) : groupOf.end();
      if (it == groupOf.end() || (only && *only != it->second)) {
        one = false;
        break;
      }
      only = it->second;
    }
    if (one && (isa<SliceLayerOp>(op) || fedByGroup(op, *only, groupOf)))
      groupOf[&op] = *only;
  }
  for (Operation &op : body.without_terminator()) {
    auto it = groupOf.find(&op);
    if (it != groupOf.end()) {
      groups[it->second].ops.push_back(&op);
      groups[it->second].members.insert(&op);
    }
  }
  return groups;
}

/// Ops whose order the runtime sees (collectives, gradient signals, calls):
/// they keep their relative order.
bool isOrdered(Operation *op) {
  return isa<CollectiveOpInterface, CollectiveWaitOp, GradientReadyOp, func::CallOp>(op);
}

/// An order of the body's ops and groups (nodes: -1 - group, or the op's
/// index) that every value and ordered op respects, as close to program
/// order as it allows; empty when the groups cannot be called (a cycle).
std::vector<int> scheduleNodes(Block &body, const DenseMap<Operation *, int> &groupOf,
                               size_t numGroups) {
  std::vector<Operation *> ops;
  DenseMap<Operation *, int> index;
  for (Operation &op : body.without_terminator()) {
    index[&op] = static_cast<int>(ops.size());
    ops.push_back(&op);
  }
  // Nodes: groups first (0..numGroups-1), then ungrouped ops.
  size_t numNodes = numGroups + ops.size();
  auto nodeOf = [&](Operation *op) -> int {
    auto it = groupOf.find(op);
    return it != groupOf.end() ? it->second : static_cast<int>(numGroups) + index.lookup(op);
  };
  std::vector<int> first(numNodes, INT32_MAX), indegree(numNodes, 0);
  std::vector<std::vector<int>> next(numNodes);
  auto edge = [&](int from, int to) {
    if (from != to) {
      next[from].push_back(to);
      ++indegree[to];
    }
  };
  Operation *lastOrdered = nullptr;
  for (Operation *op : ops) {
    int node = nodeOf(op);
    first[node] = std::min(first[node], index[op]);
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
          edge(nodeOf(def), node);
    });
    if (isOrdered(op)) {
      if (lastOrdered)
        edge(nodeOf(lastOrdered), node);
      lastOrdered = op;
    }
  }
  using Entry = std::pair<int, int>; // (first op, node)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (size_t n = 0; n < numNodes; ++n)
    if (first[n] != INT32_MAX && indegree[n] == 0)
      ready.push({first[n], static_cast<int>(n)});
  std::vector<int> order;
  while (!ready.empty()) {
    int n = ready.top().second;
    ready.pop();
    order.push_back(n < static_cast<int>(numGroups) ? -1 - n : n - static_cast<int>(numGroups));
    for (int m : next[n])
      if (--indegree[m] == 0)
        ready.push({first[m], m});
  }
  size_t used = llvm::count_if(first, [](int f) { return f != INT32_MAX; });
  return order.size() == used ? order : std::vector<int>{};
}

/// The values a group reads from outside it (constants excepted: the
/// callee makes its own) and those it gives to ops outside it.
void findBoundary(LayerGroup &g) {
  llvm::SetVector<Value> inputs;
  Block *body = g.ops.front()->getBlock();
  for (Operation *op : g.ops)
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        // Defined in a member (or one of its regions): inside the group.
        Operation *owner =
            isa<BlockArgument>(v) ? v.getParentBlock()->getParentOp() : v.getDefiningOp();
        Operation *top = body->findAncestorOpInBlock(*owner);
        if (top && (g.members.contains(top) || matchPattern(top, m_Constant())))
          continue;
        inputs.insert(v);
      }
    });
  g.inputs = inputs.takeVector();
  for (Operation *op : g.ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *user) {
            Operation *top = op->getBlock()->findAncestorOpInBlock(*user);
            return !top || !g.members.contains(top);
          }))
        g.outputs.push_back(r);
  for (Operation *op : g.ops) {
    if (std::optional<int64_t> s = slotOf(op))
      g.slot = g.slot ? std::min(*g.slot, *s) : *s;
    if (auto keyed = dyn_cast<DropoutKeyedOpInterface>(op))
      g.keyed |= keyed.getKeyLayer().has_value();
  }
}

/// The argument of a stacked tensor an output updates in place (through a
/// chain of inserts), if any.
std::optional<unsigned> inPlaceInput(const LayerGroup &g, Value output) {
  Value v = output;
  while (auto insert = v.getDefiningOp<InsertLayerOp>()) {
    if (!g.members.contains(insert))
      break;
    v = insert.getInto();
  }
  if (v == output)
    return std::nullopt;
  const auto *it = llvm::find(g.inputs, v);
  if (it == g.inputs.end())
    return std::nullopt;
  return static_cast<unsigned>(it - g.inputs.begin());
}

/// `fn`'s own key offset argument (a shared stage program's), if any.
BlockArgument ownKeyOffset(func::FuncOp fn) {
  for (BlockArgument arg : fn.getArguments())
    if (fn.getArgAttr(arg.getArgNumber(), kLayerOffsetAttrName))
      return arg;
  return {};
}

/// The type of the key offset `fn`'s layers take: a scalar where the
/// offsets are constants (as a tensor it would be a buffer the caller fills
/// before each call: on a GPU, a one-thread kernel a layer); a tensor where
/// they are computed from `fn`'s own offset, which a GPU holds in device
/// memory where the host cannot read it.
Type keyOffsetType(func::FuncOp fn) {
  Type i64 = IntegerType::get(fn.getContext(), 64);
  return ownKeyOffset(fn) ? Type(RankedTensorType::get({}, i64)) : i64;
}

/// The group's ops as a private function of its inputs (then the slot and
/// the key offset), its slices and inserts at the slot argument.
func::FuncOp buildCallee(LayerGroup &g, ModuleOp module, StringRef name) {
  MLIRContext *ctx = module.getContext();
  OpBuilder mb(ctx);
  mb.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes;
  for (Value v : g.inputs)
    argTypes.push_back(v.getType());
  if (g.slot)
    argTypes.push_back(mb.getIndexType());
  if (g.keyed)
    argTypes.push_back(keyOffsetType(g.ops.front()->getParentOfType<func::FuncOp>()));
  SmallVector<Type> resultTypes;
  for (Value v : g.outputs)
    resultTypes.push_back(v.getType());
  Location loc = g.ops.front()->getLoc();
  auto fn = func::FuncOp::create(mb, loc, name, mb.getFunctionType(argTypes, resultTypes));
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  if (g.keyed)
    fn.setArgAttr(fn.getNumArguments() - 1, kLayerOffsetAttrName, mb.getUnitAttr());
  // The inputs are distinct values live at the call: without this LLVM must
  // assume the slices it loads and the buffers it stores overlap (gpt-wide-256
  // trained about 5% slower).
  for (unsigned i = 0; i < g.inputs.size(); ++i)
    fn.setArgAttr(i, "llvm.noalias", mb.getUnitAttr());
  for (auto [i, out] : llvm::enumerate(g.outputs))
    if (std::optional<unsigned> arg = inPlaceInput(g, out))
      fn.setResultAttr(i, kInPlaceOfAttrName, mb.getI64IntegerAttr(*arg));

  IRMapping map;
  for (auto [v, arg] : llvm::zip(g.inputs, entry->getArguments()))
    map.map(v, arg);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  Value slot = g.slot ? entry->getArgument(g.inputs.size()) : Value();
  auto slotPlus = [&](int64_t k) -> Value {
    if (k == *g.slot)
      return slot;
    Value delta = arith::ConstantIndexOp::create(b, loc, k - *g.slot);
    return arith::AddIOp::create(b, loc, slot, delta);
  };
  // The offsets, sizes and strides of layer `k` of a stacked tensor.
  auto layerBox = [&](RankedTensorType stacked, int64_t k, SmallVector<OpFoldResult> &offsets,
                      SmallVector<OpFoldResult> &sizes, SmallVector<OpFoldResult> &strides) {
    offsets.assign(stacked.getRank(), b.getIndexAttr(0));
    offsets[0] = slotPlus(k);
    sizes.clear();
    for (int64_t d : stacked.getShape())
      sizes.push_back(b.getIndexAttr(d));
    sizes[0] = b.getIndexAttr(1);
    strides.assign(stacked.getRank(), b.getIndexAttr(1));
  };
  for (Operation *op : g.ops) {
    // Constants the group reads are its own.
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && !map.contains(v) && matchPattern(def, m_Constant()))
        map.map(v, b.clone(*def)->getResult(0));
    SmallVector<OpFoldResult> offsets, sizes, strides;
    if (auto slice = dyn_cast<SliceLayerOp>(op)) {
      auto stacked = cast<RankedTensorType>(slice.getInput().getType());
      layerBox(stacked, slice.getLayerAttr().getInt(), offsets, sizes, strides);
      Value r =
          tensor::ExtractSliceOp::create(b, op->getLoc(), cast<RankedTensorType>(slice.getType()),
                                         map.lookup(slice.getInput()), offsets, sizes, strides);
      map.map(slice.getResult(), r);
      continue;
    }
    if (auto insert = dyn_cast<InsertLayerOp>(op)) {
      auto stacked = cast<RankedTensorType>(insert.getInto().getType());
      layerBox(stacked, insert.getLayerAttr().getInt(), offsets, sizes, strides);
      Value r =
          tensor::InsertSliceOp::create(b, op->getLoc(), map.lookup(insert.getValue()),
                                        map.lookup(insert.getInto()), offsets, sizes, strides);
      map.map(insert.getResult(), r);
      continue;
    }
    Operation *copy = b.clone(*op, map);
    copy->removeAttr(kLayerAttrName);
    copy->walk([&](DropoutKeyedOpInterface keyed) {
      if (std::optional<int64_t> k = keyed.getKeyLayer())
        keyed.setKeyLayer(*k - g.layer);
    });
  }
  SmallVector<Value> results;
  for (Value v : g.outputs)
    results.push_back(map.lookup(v));
  func::ReturnOp::create(b, loc, results);
  return fn;
}

/// The callee's code as text: equal texts compile to the same code.
std::string calleeText(func::FuncOp fn) {
  OwningOpRef<func::FuncOp> copy(fn.clone());
  copy->setSymName("layer");
  std::string text;
  llvm::raw_string_ostream os(text);
  // Without locations, whatever --mlir-print-debuginfo says: where an op
  // came from must not decide what is shared.
  copy->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

/// The key offset of layer `layer` in `fn`: its own offset argument plus
/// the layer, or the layer.
Value keyOffset(OpBuilder &b, Location loc, func::FuncOp fn, int64_t layer) {
  Value k = arith::ConstantIntOp::create(b, loc, b.getI64Type(), layer);
  BlockArgument own = ownKeyOffset(fn);
  if (!own)
    return k;
  Value base = tensor::ExtractOp::create(b, loc, own, ValueRange{});
  Value sum = arith::AddIOp::create(b, loc, base, k);
  return tensor::FromElementsOp::create(b, loc, keyOffsetType(fn), ValueRange{sum});
}

/// Replaces `g`'s ops by a call of its callee at the builder.
/// `replaced`: outputs of groups called before, by their call's results.
void callGroup(OpBuilder &b, func::FuncOp fn, LayerGroup &g, DenseMap<Value, Value> &replaced) {
  Location loc = g.ops.front()->getLoc();
  SmallVector<Value> operands;
  for (Value v : g.inputs)
    operands.push_back(replaced.lookup(v) ? replaced.lookup(v) : v);
  if (g.slot)
    operands.push_back(arith::ConstantIndexOp::create(b, loc, *g.slot));
  if (g.keyed)
    operands.push_back(keyOffset(b, loc, fn, g.layer));
  auto call = func::CallOp::create(b, loc, g.callee, operands);
  call->setAttr(kLayerAttrName, b.getI64IntegerAttr(g.layer));
  for (auto [out, r] : llvm::zip(g.outputs, call.getResults())) {
    replaced[out] = r;
    out.replaceUsesWithIf(r, [&](OpOperand &use) {
      Operation *top = g.ops.front()->getBlock()->findAncestorOpInBlock(*use.getOwner());
      return !top || !g.members.contains(top);
    });
  }
  for (Operation *op : llvm::reverse(g.ops))
    op->erase();
}

struct OutlineLayersPass : mt::impl::OutlineLayersPassBase<OutlineLayersPass> {
  std::map<std::string, func::FuncOp> callees; // by their code

  void outline(func::FuncOp fn, SymbolTable &symbols) {
    Block &body = fn.getBody().front();
    DenseMap<Operation *, int> groupOf;
    std::vector<LayerGroup> groups = groupByLayer(body, groupOf);
    if (groups.size() < 2)
      return;
    std::vector<int> order = scheduleNodes(body, groupOf, groups.size());
    if (order.empty())
      return;
    // Callees for the groups, kept only when two groups share the code.
    std::map<std::string, int> uses;
    std::vector<std::string> texts;
    ModuleOp module = getOperation();
    for (LayerGroup &g : groups) {
      findBoundary(g);
      func::FuncOp callee = buildCallee(g, module, (fn.getSymName() + "_layer").str());
      texts.push_back(calleeText(callee));
      ++uses[texts.back()];
      callee.erase();
    }
    bool any = false;
    for (auto [g, text] : llvm::zip(groups, texts)) {
      if (uses[text] < 2 && !callees.count(text))
        continue;
      auto [it, fresh] = callees.try_emplace(text);
      if (fresh) {
        it->second = buildCallee(g, module, (fn.getSymName() + "_layer").str());
        symbols.insert(it->second);
      }
      g.callee = it->second;
      any = true;
    }
    if (!any)
      return;
    // The body in the scheduled order, each outlined group as its call.
    Operation *terminator = body.getTerminator();
    std::vector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    OpBuilder b(terminator);
    DenseMap<Value, Value> replaced;
    for (int node : order) {
      if (node >= 0) {
        ops[node]->moveBefore(terminator);
        continue;
      }
      LayerGroup &g = groups[-1 - node];
      if (g.callee) {
        callGroup(b, fn, g, replaced);
        continue;
      }
      for (Operation *op : g.ops)
        op->moveBefore(terminator);
    }
  }

  void runOnOperation() override {
    if (getOperation()->hasAttr(kLayersInlineAttrName))
      return;
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> functions;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (isTrainingFunction(fn))
        functions.push_back(fn);
    for (func::FuncOp fn : functions)
      outline(fn, symbols);
  }
};

} // namespace
