//===- DropInPlaceResults.cpp - results written over an argument -----------===//
#include "mt/Conversion/Passes.h"

#include "mt/Analysis/ModelInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringMap.h"

namespace mt {
#define GEN_PASS_DEF_DROPINPLACERESULTSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// The buffer `v` is: through casts, and through loops that carry a buffer
/// and hand back the one they were given (a loop nest that stores into it).
Value stripCasts(Value v) {
  while (true) {
    if (auto cast = v.getDefiningOp<memref::CastOp>()) {
      v = cast.getSource();
      continue;
    }
    auto loop = v.getDefiningOp<scf::ForOp>();
    if (!loop)
      return v;
    unsigned i = cast<OpResult>(v).getResultNumber();
    Value yielded = loop.getBody()->getTerminator()->getOperand(i);
    if (stripCasts(yielded) != loop.getRegionIterArg(i))
      return v;
    v = loop.getInitArgs()[i];
  }
}

/// Whether `a` and `b` are the same view: the same value, or identical
/// subviews of one buffer.
bool sameView(Value a, Value b) {
  a = stripCasts(a);
  b = stripCasts(b);
  if (a == b)
    return true;
  auto x = a.getDefiningOp<memref::SubViewOp>(), y = b.getDefiningOp<memref::SubViewOp>();
  return x && y && x.getType() == y.getType() && sameView(x.getSource(), y.getSource()) &&
         x.getMixedOffsets() == y.getMixedOffsets() && x.getMixedSizes() == y.getMixedSizes() &&
         x.getMixedStrides() == y.getMixedStrides();
}

/// An update in place of a slice (extract, compute into it, insert back)
/// bufferizes to a copy of the slice onto itself: a pass over the data
/// that does nothing.
void eraseSelfCopies(func::FuncOp fn) {
  SmallVector<memref::CopyOp> copies;
  fn.walk([&](memref::CopyOp copy) {
    if (sameView(copy.getSource(), copy.getTarget()))
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies)
    copy.erase();
}

/// A buffer returned twice (a model whose metric is its loss) gets a copy
/// for the second result: buffer-results-to-out-params needs one buffer
/// per result.
void copyRepeatedResults(func::FuncOp fn) {
  fn.walk([&](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
      Value v = ret.getOperand(i);
      auto type = dyn_cast<MemRefType>(v.getType());
      bool repeated = llvm::is_contained(ret.getOperands().take_front(i), v);
      if (!repeated || !type || !type.hasStaticShape())
        continue;
      Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
      memref::CopyOp::create(b, ret.getLoc(), v, copy);
      ret.setOperand(i, copy);
    }
  });
}

/// A call's results that `fn` no longer returns are the buffers it was
/// given for them.
void dropCallResults(func::FuncOp fn, func::CallOp call, const llvm::BitVector &drop) {
  for (unsigned i : drop.set_bits()) {
    int64_t k = fn.getResultAttrOfType<IntegerAttr>(i, mt::kInPlaceOfAttrName).getInt();
    call.getResult(i).replaceAllUsesWith(call.getOperand(k));
  }
  SmallVector<Type> kept;
  for (unsigned i = 0; i < call.getNumResults(); ++i)
    if (!drop.test(i))
      kept.push_back(call.getResult(i).getType());
  OpBuilder b(call);
  auto fresh =
      func::CallOp::create(b, call.getLoc(), call.getCalleeAttr(), kept, call.getOperands());
  fresh->setAttrs(call->getAttrs());
  unsigned next = 0;
  for (unsigned i = 0; i < call.getNumResults(); ++i)
    if (!drop.test(i))
      call.getResult(i).replaceAllUsesWith(fresh.getResult(next++));
  call.erase();
}

/// The temporary `v` is a view of, through casts, loops that hand back
/// their buffer, and reshapes (`reshaped` set when there are any).
memref::AllocOp temporaryUnder(Value v, bool &reshaped) {
  reshaped = false;
  while (true) {
    v = stripCasts(v);
    if (auto expand = v.getDefiningOp<memref::ExpandShapeOp>())
      v = expand.getSrc();
    else if (auto collapse = v.getDefiningOp<memref::CollapseShapeOp>())
      v = collapse.getSrc();
    else
      return v.getDefiningOp<memref::AllocOp>();
    reshaped = true;
  }
}

/// `whole` (contiguous) seen with `type`'s shape: flattened, then unflattened.
Value reshapedView(OpBuilder &b, Location loc, Value whole, MemRefType type) {
  auto from = cast<MemRefType>(whole.getType());
  auto flatType = MemRefType::get({from.getNumElements()}, from.getElementType());
  auto all = [](int64_t rank) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return SmallVector<ReassociationIndices>{dims};
  };
  Value flat = whole;
  if (from.getRank() != 1)
    flat = memref::CollapseShapeOp::create(b, loc, flatType, whole, all(from.getRank()));
  if (type.getRank() == 1)
    return flat;
  return memref::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}

/// A result that is a temporary seen through a loop or reshapes would be
/// copied into its out-parameter (buffer-results-to-out-params hoists only
/// a returned allocation): return an allocation itself, in the result's
/// shape, with the temporary a reshaped view of it.
void returnTemporariesDirectly(func::FuncOp fn) {
  fn.walk([&](func::ReturnOp ret) {
    for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
      Value v = ret.getOperand(i);
      auto type = dyn_cast<MemRefType>(v.getType());
      bool reshaped = false;
      memref::AllocOp alloc = temporaryUnder(v, reshaped);
      if (!type || !alloc || alloc.getResult() == v || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || type.getRank() == 0 || alloc.getType().getRank() == 0 ||
          !alloc.getType().getLayout().isIdentity() || alloc->getBlock() != &fn.getBody().front() ||
          llvm::is_contained(ret.getOperands(), alloc.getResult()))
        continue;
      if (!reshaped) {
        ret.setOperand(i, alloc.getResult());
        continue;
      }
      OpBuilder b(alloc);
      auto whole = memref::AllocOp::create(b, alloc.getLoc(), type);
      alloc.replaceAllUsesWith(reshapedView(b, alloc.getLoc(), whole, alloc.getType()));
      alloc.erase();
      ret.setOperand(i, whole);
    }
  });
}

LogicalResult dropInPlaceResults(func::FuncOp fn, ArrayRef<func::CallOp> calls) {
  eraseSelfCopies(fn);
  copyRepeatedResults(fn);
  returnTemporariesDirectly(fn);
  llvm::BitVector drop(fn.getNumResults());
  for (unsigned i = 0; i < fn.getNumResults(); ++i) {
    auto of = fn.getResultAttrOfType<IntegerAttr>(i, mt::kInPlaceOfAttrName);
    if (!of)
      continue;
    int64_t k = of.getInt();
    if (k < 0 || k >= fn.getNumArguments() || fn.getArgument(k).getType() != fn.getResultTypes()[i])
      return fn.emitError("mt-drop-in-place-results: result ")
             << i << " is marked in place of argument " << k
             << ", which does not exist or has another type";
    drop.set(i);
  }
  if (drop.none())
    return success();
  if (fn.isExternal())
    return fn.emitError("mt-drop-in-place-results: an external function cannot update in place");
  WalkResult walk = fn.walk([&](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (unsigned i : drop.set_bits()) {
      Value arg =
          fn.getArgument(fn.getResultAttrOfType<IntegerAttr>(i, mt::kInPlaceOfAttrName).getInt());
      Value result = ret.getOperand(i);
      if (!isa<MemRefType>(result.getType())) {
        ret.emitError("mt-drop-in-place-results: run it on bufferized IR");
        return WalkResult::interrupt();
      }
      // Bufferization wrote elsewhere (it could not prove the update safe in
      // place): copy the result where the caller expects it.
      if (stripCasts(result) != arg)
        memref::CopyOp::create(b, ret.getLoc(), result, arg);
    }
    ret->eraseOperands(drop);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (func::CallOp call : calls)
    dropCallResults(fn, call, drop);
  return fn.eraseResults(drop);
}

struct DropInPlaceResultsPass : mt::impl::DropInPlaceResultsPassBase<DropInPlaceResultsPass> {
  void runOnOperation() override {
    llvm::StringMap<SmallVector<func::CallOp>> callsOf;
    getOperation().walk([&](func::CallOp call) { callsOf[call.getCallee()].push_back(call); });
    // Called functions first: their callers' results are then the buffers
    // the calls were given, which a caller's own in-place results may be.
    SmallVector<func::FuncOp> order;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (callsOf.count(fn.getSymName()))
        order.push_back(fn);
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!callsOf.count(fn.getSymName()))
        order.push_back(fn);
    for (func::FuncOp fn : order)
      if (failed(dropInPlaceResults(fn, callsOf.lookup(fn.getSymName()))))
        return signalPassFailure();
  }
};

} // namespace
