//===- ActivationMemory.cpp - what a training step keeps alive -------------===//
#include "mt/Analysis/ActivationMemory.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mt {

int64_t storageBytes(Type elementType) {
  unsigned bits = elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  return std::max<int64_t>((bits + 7) / 8, 1);
}

int64_t ActivationMemory::layerBytes(std::optional<int64_t> layer) const {
  int64_t sum = 0;
  for (const SavedTensor &t : saved)
    if (t.layer == layer)
      sum += t.bytes;
  return sum;
}

namespace {

int64_t bytesOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return 0;
  return t.getNumElements() * storageBytes(t.getElementType());
}

std::string typeText(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto t = cast<RankedTensorType>(v.getType());
  for (int64_t d : t.getShape())
    os << d << "x";
  os << t.getElementType();
  return s;
}

std::optional<int64_t> layerOf(Operation *op) {
  if (auto l = op->getAttrOfType<IntegerAttr>(kLayerAttrName))
    return l.getInt();
  return std::nullopt;
}

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

/// A dropout with rate 0 lowers to its input: the same tensor, not a copy.
bool isAlias(Operation *op) {
  auto d = dyn_cast_or_null<DropoutOp>(op);
  return d && d.getRate().convertToDouble() == 0.0;
}

/// The users of `v`, looking through aliases.
void usersOf(Value v, SmallVectorImpl<Operation *> &users) {
  for (Operation *user : v.getUsers()) {
    users.push_back(user);
    if (isAlias(user))
      usersOf(user->getResult(0), users);
  }
}

/// The values that live in a gradient accumulator's buffer (the runtime's,
/// not the step's): the accumulator arguments and their in-place updates.
llvm::DenseSet<Value> accumulatorValues(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  llvm::DenseSet<Value> inAccumulator;
  for (BlockArgument arg : entry.getArguments())
    if (fn.getArgAttr(arg.getArgNumber(), kAccumulatorOfAttrName))
      inAccumulator.insert(arg);
  for (Operation &op : entry) {
    auto inPlace = dyn_cast<InPlaceOpInterface>(op);
    Value into = inPlace ? inPlace.getInPlaceOperand() : Value();
    if (into && inAccumulator.contains(into))
      inAccumulator.insert(op.getResult(0));
  }
  return inAccumulator;
}

} // namespace

llvm::DenseSet<Value> activationValues(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  llvm::DenseSet<Value> activation;
  for (BlockArgument arg : entry.getArguments())
    if (!fn.getArgAttr(arg.getArgNumber(), kParamAttrName) &&
        !fn.getArgAttr(arg.getArgNumber(), kAccumulatorOfAttrName))
      activation.insert(arg);
  for (Operation &op : entry)
    if (llvm::any_of(op.getOperands(), [&](Value v) { return activation.contains(v); }))
      activation.insert(op.result_begin(), op.result_end());
  return activation;
}

ActivationMemory analyzeActivations(func::FuncOp grad) {
  ActivationMemory result;
  Block &entry = grad.getBody().front();

  // Activations: everything computed from the batch (or, in a pipeline
  // stage, from the previous stage's activation or the next stage's
  // cotangent); weights and what is computed from them alone are not.
  llvm::DenseSet<Value> activation = activationValues(grad);
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t n = 0;
  for (Operation &op : entry)
    position[&op] = n++;
  auto indexOfUser = [&](Operation *user) {
    Operation *top = entry.findAncestorOpInBlock(*user);
    return top ? position.lookup(top) : n;
  };

  // Saved: forward activations that the backward reads. The batch inputs
  // are the runtime's, not the step's; a stage input is its activation.
  auto consider = [&](Value v, Operation *def) {
    if (!activation.contains(v) || bytesOf(v) == 0 || isAlias(def))
      return;
    // A stage input, or (mt-split-stage-step) a value the forward saved.
    unsigned argNumber = def ? 0 : cast<BlockArgument>(v).getArgNumber();
    if (!def && !grad.getArgAttr(argNumber, kStageInputAttrName) &&
        !grad.getArgAttr(argNumber, kSavedAttrName))
      return;
    SmallVector<Operation *> users;
    usersOf(v, users);
    // A tensor belongs to the layer whose backward reads it (a layer's
    // input to that layer, as Korthikanti et al. count).
    bool readByBackward = false;
    std::optional<int64_t> layer;
    for (Operation *user : users) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      if (!top || !isBackward(top))
        continue;
      readByBackward = true;
      if (auto l = layerOf(top); l && (!layer || *l < *layer))
        layer = l;
    }
    if (!readByBackward)
      return;
    SavedTensor t;
    t.layer = layer;
    auto from =
        def ? StringAttr() : grad.getArgAttrOfType<StringAttr>(argNumber, kSavedFromAttrName);
    // A collective split by mt-overlap-collectives is named by what it is.
    Operation *named = def;
    if (auto wait = dyn_cast_or_null<CollectiveWaitOp>(def))
      named = wait.getPending().getDefiningOp();
    t.producer = named  ? named->getName().getStringRef().str()
                 : from ? from.getValue().str()
                        : "stage input";
    t.type = typeText(v);
    t.bytes = bytesOf(v);
    result.savedBytes += t.bytes;
    result.saved.push_back(t);
  };
  for (BlockArgument arg : entry.getArguments())
    consider(arg, nullptr);
  for (Operation &op : entry)
    if (!isBackward(&op))
      for (Value r : op.getResults())
        consider(r, &op);

  // Liveness over the op sequence: a tensor lives from its definition to
  // its last use. Batch inputs, stage inputs and results are buffers the
  // runtime holds, counted there.
  std::vector<int64_t> delta(static_cast<size_t>(n + 2), 0);
  llvm::DenseSet<Value> inAccumulator = accumulatorValues(grad);
  auto live = [&](Value v, int64_t from) {
    if (!activation.contains(v) || isAlias(v.getDefiningOp()) || inAccumulator.contains(v))
      return;
    int64_t bytes = bytesOf(v);
    if (bytes == 0)
      return;
    int64_t last = from;
    SmallVector<Operation *> users;
    usersOf(v, users);
    for (Operation *user : users) {
      // A result goes into a buffer the runtime holds: not the step's.
      if (isa<func::ReturnOp>(user))
        return;
      last = std::max(last, indexOfUser(user));
    }
    delta[static_cast<size_t>(from)] += bytes;
    delta[static_cast<size_t>(last + 1)] -= bytes;
  };
  for (Operation &op : entry)
    for (Value r : op.getResults())
      live(r, position[&op]);
  int64_t current = 0, peakIndex = 0;
  for (int64_t i = 0; i < n; ++i) {
    current += delta[static_cast<size_t>(i)];
    if (current > result.peakBytes) {
      result.peakBytes = current;
      peakIndex = i;
    }
  }
  for (Operation &op : entry)
    if (position[&op] == peakIndex) {
      std::string at = op.getName().getStringRef().str();
      if (auto layer = layerOf(&op))
        at += " in layer " + std::to_string(*layer);
      at += isBackward(&op) ? " (backward)" : " (forward)";
      result.peakAt = at;
    }
  return result;
}

} // namespace mt
