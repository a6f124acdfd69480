//===- OpRecorder.cpp - what a compiled function runs, for pricing ----------===//
#include "mt/Driver/OpRecorder.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace mt {

namespace {

double bytesOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = t.getElementType().getIntOrFloatBitWidth();
  return static_cast<double>(t.getNumElements()) * static_cast<double>((bits + 7) / 8);
}

/// Ops that are views or bookkeeping once bufferized: no kernel.
bool runsNoKernel(Operation *op) {
  static const llvm::StringSet<> views = {
      "mt.reshape",    "mt.slice_layer", "mt.insert_layer", "mt.stack_layers",   "mt.vary",
      "mt.axis_index", "mt.shard",       "mt.mesh",         "mt.gradient_ready", "mt.yield"};
  return op->getName().getDialectNamespace() != "mt" ||
         views.contains(op->getName().getStringRef());
}

int64_t axesMask(ArrayAttr axes) {
  int64_t mask = 0;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    mask |= name == "pp" ? 1 : name == "dp" ? 2 : name == "tp" ? 4 : 0;
  }
  return mask;
}

/// The collective an op is: kind, full buffer, axes.
bool asCollective(Operation *op, OpRecord &r) {
  if (auto a = dyn_cast<AllReduceOp>(op)) {
    r.collective = CollectiveKind::AllReduce;
    r.bytes = bytesOf(a.getInput().getType());
    r.axes = axesMask(a.getAxes());
  } else if (auto g = dyn_cast<AllGatherOp>(op)) {
    r.collective = CollectiveKind::AllGather;
    r.bytes = bytesOf(g.getResult().getType());
    r.axes = axesMask(g.getAxes());
  } else if (auto s = dyn_cast<ReduceScatterOp>(op)) {
    r.collective = CollectiveKind::ReduceScatter;
    r.bytes = bytesOf(s.getInput().getType());
    r.axes = axesMask(s.getAxes());
  } else {
    return false;
  }
  r.kind = OpRecord::Collective;
  r.async = llvm::any_of(op->getUsers(), [](Operation *u) { return isa<CollectiveWaitOp>(u); });
  return true;
}

void recordKernel(Operation *op, OpRecord &r) {
  if (isa<EmbeddingOp>(op)) {
    // A gather: the rows it reads, not the whole table.
    r.bytes = 2 * bytesOf(op->getResult(0).getType()) + bytesOf(op->getOperand(1).getType());
  } else {
    for (Type t : op->getOperandTypes())
      r.bytes += bytesOf(t);
    for (Type t : op->getResultTypes())
      r.bytes += bytesOf(t);
  }
  r.sixteenBit = llvm::any_of(op->getOperandTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && (tensor.getElementType().isBF16() || tensor.getElementType().isF16());
  });
  r.forward = !op->hasAttr(kBackwardAttrName) && !op->hasAttr(kRecomputedAttrName);
  auto contraction = dyn_cast<ContractionOpInterface>(op);
  if (!contraction || op->getNumResults() == 0)
    return;
  r.flops = static_cast<double>(contraction.getFlops());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (r.flops <= 0 || !result || !result.hasStaticShape() || result.getRank() < 1)
    return;
  // The GEMM's shape from its result and its work: 2 M N K = FLOPs.
  double elements = static_cast<double>(std::max<int64_t>(result.getNumElements(), 1));
  r.n = static_cast<double>(std::max<int64_t>(result.getShape().back(), 1));
  r.m = elements / r.n;
  r.k = std::max(r.flops / (2 * elements), 1.0);
}

} // namespace

std::vector<OpRecord> recordOps(func::FuncOp fn) {
  std::vector<OpRecord> out;
  llvm::DenseMap<Value, int64_t> collectiveOf; // async result -> its record
  fn.walk([&](Operation *op) {
    if (op == fn.getOperation() || op->getNumRegions() > 0)
      return;
    OpRecord r;
    if (auto wait = dyn_cast<CollectiveWaitOp>(op)) {
      r.kind = OpRecord::Wait;
      auto it = collectiveOf.find(wait.getPending());
      r.waitsFor = it == collectiveOf.end() ? -1 : it->second;
      out.push_back(r);
      return;
    }
    if (asCollective(op, r)) {
      if (r.async)
        collectiveOf[op->getResult(0)] = static_cast<int64_t>(out.size());
      out.push_back(r);
      return;
    }
    if (runsNoKernel(op))
      return;
    recordKernel(op, r);
    out.push_back(r);
  });
  return out;
}

} // namespace mt
