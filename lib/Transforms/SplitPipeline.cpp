//===- SplitPipeline.cpp - one function per pipeline stage -----------------===//
//
// Cuts a model along its mt.layer_stack ops (one, or several in a row: an
// encoder and a decoder): each stack gets a contiguous run of stages, each
// stage a contiguous range of one stack's layers (a slice of every stacked
// weight). The ops before the first stack go to the first stage, the ops
// between two stacks to the first stage of the later one, the ops after the
// last stack to the last stage. A value computed on one stage and used on a
// later one crosses every boundary between them: a stack's carried
// activation, and e.g. an encoder's output that each decoder stage's
// cross-attention reads. One crossing value is passed as it is; several are
// packed into one flat tensor (reshape and concat, split and reshape on the
// other side), so the runtime always moves one activation per boundary.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Schedule/PipelineSchedule.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

namespace mt {
#define GEN_PASS_DEF_SPLITPIPELINEPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// One stack's share of the stages: [firstStage, firstStage + counts.size()).
struct StackShare {
  LayerStackOp op;
  int64_t firstStage = 0;
  std::vector<int64_t> counts; // layers per stage
  int64_t lastStage() const { return firstStage + static_cast<int64_t>(counts.size()) - 1; }
};

/// An op with no operands and no regions (a constant): cloned into every
/// stage that uses it instead of crossing stages.
bool clonedWhereUsed(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0;
}

FailureOr<SmallVector<StackShare>> findStacks(func::FuncOp model) {
  SmallVector<StackShare> stacks;
  for (Operation &op : model.getBody().front())
    if (auto s = dyn_cast<LayerStackOp>(op))
      stacks.push_back({s, 0, {}});
  if (stacks.empty())
    return model.emitError("mt-split-pipeline: pipeline parallelism cuts the model along its "
                           "mt.layer_stack ops; @")
           << model.getSymName() << " has none";
  for (StackShare &share : stacks) {
    LayerStackOp stack = share.op;
    if (stack.getCarried().size() != 1)
      return stack.emitError("mt-split-pipeline: the stack must carry exactly one activation "
                             "between layers, it carries ")
             << stack.getCarried().size();
    for (Value w : stack.getStacked())
      if (!isa<BlockArgument>(w) ||
          !model.getArgAttr(cast<BlockArgument>(w).getArgNumber(), kParamAttrName))
        return stack.emitError("mt-split-pipeline: every stacked operand must be a parameter "
                               "of the model");
  }
  return stacks;
}

/// Stages per stack: `splitRank` stages for the first of two stacks (as
/// Megatron's --pipeline-model-parallel-split-rank), else in proportion to
/// their layers (largest remainder), at least one each.
LogicalResult shareStages(func::FuncOp model, SmallVector<StackShare> &stacks, int64_t numStages,
                          int64_t splitRank) {
  int64_t n = static_cast<int64_t>(stacks.size()), total = 0;
  for (StackShare &s : stacks)
    total += s.op.getNumLayers();
  std::vector<int64_t> parts(static_cast<size_t>(n), 1);
  if (splitRank > 0) {
    if (n != 2 || splitRank >= numStages)
      return model.emitError("mt-split-pipeline: a split rank divides the stages between an "
                             "encoder and a decoder stack: it needs exactly two stacks and must "
                             "lie in [1, ")
             << numStages - 1 << "]; got " << splitRank << " for " << n << " stacks";
    parts = {splitRank, numStages - splitRank};
  } else if (numStages < n) {
    return model.emitError("mt-split-pipeline: ")
           << n << " layer stacks need at least " << n << " pipeline stages, got " << numStages;
  } else {
    std::vector<double> exact;
    int64_t given = n;
    for (StackShare &s : stacks)
      exact.push_back(static_cast<double>(s.op.getNumLayers()) * static_cast<double>(numStages) /
                      static_cast<double>(total));
    // Beyond the one stage each: the largest shortfalls first.
    while (given < numStages) {
      size_t best = 0;
      for (size_t i = 1; i < parts.size(); ++i)
        if (exact[i] - static_cast<double>(parts[i]) >
            exact[best] - static_cast<double>(parts[best]))
          best = i;
      ++parts[best];
      ++given;
    }
  }
  int64_t first = 0;
  for (auto [s, p] : llvm::zip(stacks, parts)) {
    int64_t layers = s.op.getNumLayers();
    s.counts = splitLayers(layers, p);
    if (s.counts.empty())
      return model.emitError("mt-split-pipeline: cannot cut ")
             << layers << " layers into " << p << " pipeline stages (pipeline size x virtual stages"
             << (n > 1 ? ", this stack's share" : "")
             << "); every stage needs at least one layer: lower --pp or --virtual-stages"
             << (n > 1 ? " or move the split rank" : "") << " to at most " << layers << " stages"
             << (n > 1 ? " for this stack" : " in all");
    s.firstStage = first;
    first += p;
  }
  return success();
}

/// Where each top-level op runs and which values cross which boundaries.
struct StagePlan {
  SmallVector<StackShare> stacks;
  DenseMap<Operation *, int64_t> stageOf; // non-stack ops; constants are absent
  DenseMap<Operation *, size_t> stackIndex;
  /// Values computed on one stage and needed later: [defined, last used).
  /// A stack's result stands for its carried activation from its first stage
  /// on.
  llvm::MapVector<Value, std::pair<int64_t, int64_t>> live;

  SmallVector<Value> crossing(int64_t boundary) const {
    SmallVector<Value> out;
    for (auto &[v, range] : live)
      if (range.first <= boundary && boundary < range.second)
        out.push_back(v);
    return out;
  }
};

void planStages(func::FuncOp model, StagePlan &plan) {
  Block &entry = model.getBody().front();
  size_t next = 0;
  int64_t last = plan.stacks.back().lastStage();
  for (Operation &op : entry.without_terminator()) {
    if (auto s = dyn_cast<LayerStackOp>(op)) {
      plan.stackIndex[&op] = next++;
      continue;
    }
    if (clonedWhereUsed(&op))
      continue;
    plan.stageOf[&op] = next < plan.stacks.size() ? plan.stacks[next].firstStage : last;
  }
  auto note = [&](Value v, int64_t user) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &entry || clonedWhereUsed(def))
      return; // function arguments are everywhere; constants are cloned
    auto it = plan.stackIndex.find(def);
    int64_t defined =
        it != plan.stackIndex.end() ? plan.stacks[it->second].firstStage : plan.stageOf[def];
    auto [entryIt, inserted] = plan.live.try_emplace(v, defined, user);
    entryIt->second.second = std::max(entryIt->second.second, user);
  };
  for (Operation &op : entry) {
    if (auto it = plan.stackIndex.find(&op); it != plan.stackIndex.end()) {
      const StackShare &s = plan.stacks[it->second];
      auto stack = cast<LayerStackOp>(op);
      note(stack.getCarried().front(), s.firstStage);
      // A stack's activation lives through its own stages.
      note(stack.getResult(0), s.lastStage());
      stack.getBody().walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          note(v, s.lastStage());
      });
      continue;
    }
    int64_t user = isa<func::ReturnOp>(op) ? last : plan.stageOf[&op];
    for (Value v : op.getOperands())
      note(v, user);
  }
}

/// Several crossing values as one flat tensor, and back.
Value pack(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  if (values.size() == 1)
    return values.front();
  SmallVector<Value> flat;
  int64_t total = 0;
  for (Value v : values) {
    auto t = cast<RankedTensorType>(v.getType());
    auto flatType = RankedTensorType::get({t.getNumElements()}, t.getElementType());
    flat.push_back(ReshapeOp::create(b, loc, flatType, v));
    total += t.getNumElements();
  }
  Type element = cast<RankedTensorType>(values.front().getType()).getElementType();
  return ConcatOp::create(b, loc, RankedTensorType::get({total}, element), flat,
                          b.getI64IntegerAttr(0));
}

Type packedType(ArrayRef<Value> values) {
  if (values.size() == 1)
    return values.front().getType();
  int64_t total = 0;
  for (Value v : values)
    total += cast<RankedTensorType>(v.getType()).getNumElements();
  return RankedTensorType::get({total},
                               cast<RankedTensorType>(values.front().getType()).getElementType());
}

void unpack(OpBuilder &b, Location loc, Value packed, ArrayRef<Value> values, IRMapping &mapping) {
  if (values.size() == 1) {
    mapping.map(values.front(), packed);
    return;
  }
  SmallVector<Type> flatTypes;
  SmallVector<int64_t> sizes;
  for (Value v : values) {
    auto t = cast<RankedTensorType>(v.getType());
    flatTypes.push_back(RankedTensorType::get({t.getNumElements()}, t.getElementType()));
    sizes.push_back(t.getNumElements());
  }
  auto split = SplitOp::create(b, loc, flatTypes, packed, b.getI64IntegerAttr(0),
                               b.getDenseI64ArrayAttr(sizes));
  for (auto [v, piece] : llvm::zip(values, split.getResults()))
    mapping.map(v, ReshapeOp::create(b, loc, v.getType(), piece));
}

LogicalResult checkPackable(func::FuncOp model, ArrayRef<Value> values, int64_t boundary) {
  Type element;
  for (Value v : values) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !isa<FloatType>(t.getElementType()) ||
        (element && t.getElementType() != element))
      return model.emitError("mt-split-pipeline: values crossing pipeline stages must be "
                             "statically shaped float tensors of one element type; between "
                             "stages ")
             << boundary << " and " << boundary + 1 << " one is " << v.getType();
    element = t.getElementType();
  }
  return success();
}

/// Clones, before `op` is cloned, the constants its operands (and those of
/// ops nested in it) use that this stage has not cloned yet.
void cloneConstants(OpBuilder &b, Operation *op, IRMapping &mapping) {
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && clonedWhereUsed(def) && !mapping.contains(v) && !op->isAncestor(def))
        b.clone(*def, mapping);
  });
}

struct StageBuilder {
  func::FuncOp model;
  const StagePlan &plan;
  int64_t numStages;

  LogicalResult build(OpBuilder &moduleBuilder, int64_t k);
  void cloneStackPiece(OpBuilder &fb, const StackShare &s, int64_t k, IRMapping &mapping);
};

void StageBuilder::cloneStackPiece(OpBuilder &fb, const StackShare &s, int64_t k,
                                   IRMapping &mapping) {
  LayerStackOp stack = s.op;
  int64_t local = k - s.firstStage, first = 0;
  for (int64_t i = 0; i < local; ++i)
    first += s.counts[static_cast<size_t>(i)];
  int64_t base = stack.getFirstLayerAttr() ? stack.getFirstLayerAttr().getInt() : 0;
  Value carriedIn =
      local == 0 ? mapping.lookup(stack.getCarried().front()) : mapping.lookup(stack.getResult(0));
  SmallVector<Value> stacked;
  for (Value w : stack.getStacked())
    stacked.push_back(mapping.lookup(w));
  cloneConstants(fb, stack, mapping);
  auto part =
      LayerStackOp::create(fb, stack.getLoc(), stack.getResultTypes(), ValueRange{carriedIn},
                           stacked, fb.getI64IntegerAttr(base + first));
  stack.getBody().cloneInto(&part.getBody(), mapping);
  mapping.map(stack.getResult(0), part.getResult(0));
}

LogicalResult StageBuilder::build(OpBuilder &moduleBuilder, int64_t k) {
  bool first = k == 0, last = k == numStages - 1;
  Block &entry = model.getBody().front();
  SmallVector<Value> in = first ? SmallVector<Value>{} : plan.crossing(k - 1);
  SmallVector<Value> out = last ? SmallVector<Value>{} : plan.crossing(k);
  if ((!first && failed(checkPackable(model, in, k - 1))) ||
      (!last && failed(checkPackable(model, out, k))))
    return failure();
  // Arguments: [stage input] + the model's; stacked parameters take the
  // stage's layers (a stage holds layers of one stack only).
  const StackShare *piece = nullptr;
  for (const StackShare &s : plan.stacks)
    if (s.firstStage <= k && k <= s.lastStage())
      piece = &s;
  DenseMap<Value, int64_t> pieceLayers;
  int64_t pieceFirst = 0;
  if (piece) {
    for (int64_t i = 0; i < k - piece->firstStage; ++i)
      pieceFirst += piece->counts[static_cast<size_t>(i)];
    LayerStackOp pieceOp = piece->op;
    int64_t base = pieceOp.getFirstLayerAttr() ? pieceOp.getFirstLayerAttr().getInt() : 0;
    pieceFirst += base;
    for (Value w : pieceOp.getStacked())
      pieceLayers[w] = piece->counts[static_cast<size_t>(k - piece->firstStage)];
  }
  SmallVector<Type> argTypes;
  if (!first)
    argTypes.push_back(packedType(in));
  unsigned offset = argTypes.size();
  for (BlockArgument arg : entry.getArguments()) {
    auto t = cast<RankedTensorType>(arg.getType());
    if (auto it = pieceLayers.find(arg); it != pieceLayers.end()) {
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = it->second;
      argTypes.push_back(RankedTensorType::get(shape, t.getElementType()));
    } else {
      argTypes.push_back(t);
    }
  }
  SmallVector<Type> resultTypes =
      last ? SmallVector<Type>(model.getResultTypes()) : SmallVector<Type>{packedType(out)};
  auto fn = func::FuncOp::create(moduleBuilder, model.getLoc(),
                                 (model.getSymName() + "_stage" + Twine(k)).str(),
                                 moduleBuilder.getFunctionType(argTypes, resultTypes));
  Block *body = fn.addEntryBlock();
  IRMapping mapping;
  for (BlockArgument arg : entry.getArguments())
    mapping.map(arg, body->getArgument(offset + arg.getArgNumber()));
  OpBuilder fb = OpBuilder::atBlockEnd(body);
  if (!first)
    unpack(fb, model.getLoc(), body->getArgument(0), in, mapping);
  for (Operation &op : entry.without_terminator()) {
    if (auto it = plan.stackIndex.find(&op); it != plan.stackIndex.end()) {
      const StackShare &s = plan.stacks[it->second];
      if (s.firstStage <= k && k <= s.lastStage())
        cloneStackPiece(fb, s, k, mapping);
      continue;
    }
    auto it = plan.stageOf.find(&op);
    if (it == plan.stageOf.end() || it->second != k)
      continue;
    cloneConstants(fb, &op, mapping);
    fb.clone(op, mapping);
  }
  if (last) {
    Operation *ret = entry.getTerminator();
    cloneConstants(fb, ret, mapping);
    fb.clone(*ret, mapping);
  } else {
    SmallVector<Value> values;
    for (Value v : out)
      values.push_back(mapping.lookup(v));
    func::ReturnOp::create(fb, model.getLoc(), pack(fb, model.getLoc(), values));
  }

  // Attributes, then drop the arguments this stage does not use.
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = offset + arg.getArgNumber();
    fn.setArgAttrs(i, model.getArgAttrDict(arg.getArgNumber()));
    if (pieceLayers.count(arg))
      fn.setArgAttr(i, kFirstLayerAttrName, fb.getI64IntegerAttr(pieceFirst));
  }
  if (!first)
    fn.setArgAttr(0, kStageInputAttrName, fb.getUnitAttr());
  if (last)
    fn.setAllResultAttrs(model.getAllResultAttrs());
  llvm::BitVector unused(body->getNumArguments());
  for (unsigned i = offset; i < body->getNumArguments(); ++i)
    if (body->getArgument(i).use_empty())
      unused.set(i);
  if (failed(fn.eraseArguments(unused)))
    return fn.emitError("mt-split-pipeline: cannot drop unused arguments");
  fn->setAttr(kStageAttrName, fb.getI64IntegerAttr(k));
  fn->setAttr(kNumStagesAttrName, fb.getI64IntegerAttr(numStages));
  fn->setAttr(kPipelineOfAttrName, fb.getStringAttr(model.getSymName()));
  return success();
}

LogicalResult split(ModuleOp module, func::FuncOp model, int64_t numStages, int64_t splitRank) {
  FailureOr<SmallVector<StackShare>> found = findStacks(model);
  if (failed(found))
    return failure();
  StagePlan plan;
  plan.stacks = std::move(*found);
  if (failed(shareStages(model, plan.stacks, numStages, splitRank)))
    return failure();
  planStages(model, plan);
  OpBuilder b(module.getContext());
  b.setInsertionPoint(model);
  StageBuilder stages{model, plan, numStages};
  for (int64_t k = 0; k < numStages; ++k)
    if (failed(stages.build(b, k)))
      return failure();
  model.erase();
  return success();
}

struct SplitPipelinePass : mt::impl::SplitPipelinePassBase<SplitPipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    if (stages < 1 || virtualStages < 1 || splitRank < 0) {
      getOperation().emitError("mt-split-pipeline: stages and virtual-stages must be >= 1, "
                               "split-rank >= 0");
      return signalPassFailure();
    }
    int64_t total = stages * virtualStages;
    if (total == 1)
      return;
    for (func::FuncOp model : modelFunctions(getOperation())) {
      if (splitRank > 0 && virtualStages > 1) {
        model.emitError("mt-split-pipeline: a split rank counts pipeline ranks; with virtual "
                        "stages, leave it out (the stages are shared in proportion to the "
                        "layers)");
        return signalPassFailure();
      }
      if (failed(split(getOperation(), model, total, splitRank)))
        return signalPassFailure();
    }
  }
};

} // namespace
