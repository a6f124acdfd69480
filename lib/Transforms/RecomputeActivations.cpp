//===- RecomputeActivations.cpp - recompute instead of keeping -------------===//
//
// A forward value the backward reads is kept from the forward to the
// backward. Recomputing it in the backward, from what its ops read, trades
// work for memory. The pass clones a unit of forward ops (in order) right
// before the first backward op of the unit's layers that reads any of their
// results, and points those readers at the clones; the forward results then
// die in the forward (unless a later layer's backward reads them: a layer
// keeps its input), and only the unit's inputs are kept. Units:
//
// * all-gathers: under sequence parallelism each column-parallel linear's
//   input is gathered from sequence pieces; keeping the gathered tensor costs
//   t times the piece, so Megatron gathers again in the backward.
// * selective: each layer's attention core (scores, softmax, dropout,
//   context), whose tensors grow with the square of the sequence
//   (Korthikanti et al. 2022).
// * full: whole layers, one by one or in groups (method uniform), or only
//   the first n layers of each stage (method block), as Megatron's
//   --recompute-granularity=full.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Analysis/OpCost.h"
#include "mt/Transforms/Passes.h"
#include "mt/Transforms/Recompute.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>
#include <set>

namespace mt {
#define GEN_PASS_DEF_RECOMPUTEACTIVATIONSPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace mt {

std::optional<int64_t> layerOf(Operation *op) {
  if (auto l = op->getAttrOfType<IntegerAttr>(kLayerAttrName))
    return l.getInt();
  return std::nullopt;
}

int64_t recomputeUnit(const RecomputeUnit &unit) {
  // Only the unit's own layers' backward reads the clones; a later layer
  // keeps reading the forward value (its input), so the recomputation runs
  // right where its layers' backward begins.
  std::set<std::optional<int64_t>> layers;
  for (Operation *op : unit)
    layers.insert(layerOf(op));
  auto readsClone = [&](Operation *user) {
    return user->hasAttr(kBackwardAttrName) && layers.count(layerOf(user));
  };
  Operation *first = nullptr;
  for (Operation *op : unit)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (readsClone(user) && (!first || user->isBeforeInBlock(first)))
          first = user;
  if (!first)
    return 0;
  OpBuilder b(first);
  IRMapping map;
  SmallVector<Operation *> clones;
  for (Operation *op : unit) {
    Operation *copy = b.clone(*op, map);
    copy->setAttr(kBackwardAttrName, b.getUnitAttr());
    copy->setAttr(kRecomputedAttrName, b.getUnitAttr());
    clones.push_back(copy);
  }
  llvm::SmallPtrSet<Operation *, 32> cloned(clones.begin(), clones.end());
  for (Operation *op : unit)
    for (Value r : op->getResults())
      r.replaceUsesWithIf(map.lookup(r), [&](OpOperand &use) {
        return readsClone(use.getOwner()) && !cloned.contains(use.getOwner());
      });
  // Clones the backward does not read (a layer's output, say) go again.
  int64_t flops = 0;
  for (Operation *copy : llvm::reverse(clones)) {
    if (isOpTriviallyDead(copy))
      copy->erase();
    else
      flops += opFlops(copy);
  }
  return flops;
}

} // namespace mt

namespace {

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

using Unit = RecomputeUnit;

/// The attention core of each layer: from the scores to the context.
std::vector<Unit> attentionCores(Block &block) {
  llvm::SetVector<Operation *> core;
  for (Operation &op : block) {
    if (isBackward(&op))
      continue;
    if (isa<AttentionScoresOp>(op)) {
      core.insert(&op);
      continue;
    }
    // Downstream of the scores up to and including the context; a stored
    // dropout mask goes with its masked scale.
    bool fed = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && core.contains(def) && !isa<AttentionContextOp>(def);
    });
    if (!fed)
      continue;
    if (auto m = dyn_cast<MaskedScaleOp>(op))
      if (auto mask = m.getMask().getDefiningOp<DropoutMaskOp>())
        core.insert(mask);
    core.insert(&op);
  }
  std::map<std::optional<int64_t>, Unit> byLayer;
  for (Operation &op : block)
    if (core.contains(&op))
      byLayer[layerOf(&op)].push_back(&op);
  std::vector<Unit> units;
  for (auto &[layer, unit] : byLayer)
    if (layer)
      units.push_back(unit);
  return units;
}

/// An all-gather and the converts of its result: with 16-bit activations
/// and fp32 collectives the linear keeps the converted copy, so gathering
/// again alone would keep it all the same.
Unit gatherUnit(Operation *gather) {
  Unit unit{gather};
  for (Operation *user : gather->getResult(0).getUsers())
    if (isa<ConvertOp>(user) && !isBackward(user) && !llvm::is_contained(unit, user))
      unit.push_back(user);
  return unit;
}

struct RecomputeActivationsPass : mt::impl::RecomputeActivationsPassBase<RecomputeActivationsPass> {
  using Base::Base;

  /// granularity=auto: the planner chooses under the stage's budget and the
  /// function records the choice for reports.
  LogicalResult planFunction(func::FuncOp fn) {
    int64_t stage = 0;
    if (auto s = fn->getAttrOfType<IntegerAttr>(kStageAttrName))
      stage = s.getInt();
    if (activationBudgets.size() > 1 && stage >= static_cast<int64_t>(activationBudgets.size()))
      return fn.emitError() << "mt-recompute-activations: no activation budget for virtual "
                               "stage "
                            << stage << " (" << activationBudgets.size() << " given)";
    int64_t budget = activationBudgets[activationBudgets.size() > 1 ? stage : 0];
    RecomputeChoice choice = planRecomputation(fn, budget);
    Builder b(fn.getContext());
    fn->setAttr(
        kRecomputePlanAttrName,
        b.getDictionaryAttr({b.getNamedAttr("budget", b.getI64IntegerAttr(budget)),
                             b.getNamedAttr("peak", b.getI64IntegerAttr(choice.peakBytes)),
                             b.getNamedAttr("flops", b.getI64IntegerAttr(choice.flops)),
                             b.getNamedAttr("fits", b.getBoolAttr(choice.fits)),
                             b.getNamedAttr("cuts", b.getI64IntegerAttr(choice.cutsTried))}));
    return success();
  }

  void runOnOperation() override {
    if (numLayers < 1) {
      getOperation().emitError() << "mt-recompute-activations: num-layers must be >= 1, got "
                                 << static_cast<int64_t>(numLayers);
      return signalPassFailure();
    }
    if (granularity == RecomputeGranularity::Auto &&
        (activationBudgets.empty() ||
         llvm::any_of(activationBudgets, [](int64_t b) { return b < 0; }))) {
      getOperation().emitError() << "mt-recompute-activations: granularity=auto needs "
                                    "activation-budgets (bytes >= 0, one for every stage or one "
                                    "per virtual stage)";
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kGradientOfAttrName) || fn.isExternal())
        continue;
      Block &block = fn.getBody().front();
      std::vector<Unit> units;
      llvm::SmallPtrSet<Operation *, 32> taken;
      if (granularity == RecomputeGranularity::Full) {
        // The stage's layers in order; uniform: groups of num-layers,
        // block: the first num-layers, each alone.
        llvm::SetVector<int64_t> layers;
        for (Operation &op : block)
          if (auto l = layerOf(&op); l && !isBackward(&op))
            layers.insert(*l);
        std::map<int64_t, size_t> group;
        for (size_t i = 0; i < layers.size(); ++i) {
          if (method == RecomputeMethod::Block && static_cast<int64_t>(i) >= numLayers)
            break;
          group[layers[i]] =
              method == RecomputeMethod::Block ? i : i / static_cast<size_t>(numLayers);
        }
        std::map<size_t, Unit> byGroup;
        for (Operation &op : block)
          if (auto l = layerOf(&op); l && !isBackward(&op) && group.count(*l))
            byGroup[group[*l]].push_back(&op);
        for (auto &[g, unit] : byGroup) {
          units.push_back(unit);
          taken.insert(unit.begin(), unit.end());
        }
      } else if (granularity == RecomputeGranularity::Selective) {
        for (Unit &unit : attentionCores(block)) {
          units.push_back(unit);
          taken.insert(unit.begin(), unit.end());
        }
      }
      if (allGathers)
        for (Operation &op : block)
          if (!isBackward(&op) && isa<AllGatherOp>(op) && !taken.contains(&op))
            units.push_back(gatherUnit(&op));
      for (const Unit &unit : units)
        recomputeUnit(unit);
      if (granularity == RecomputeGranularity::Auto && failed(planFunction(fn)))
        return signalPassFailure();
    }
  }
};

} // namespace
