//===- BufferRanges.cpp - which bytes of which buffer a memref views -------===//
#include "BufferRanges.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <numeric>

using namespace mlir;

namespace mt {
namespace {

/// Whether `loop` hands its i-th carried buffer on unchanged: each
/// iteration yields it (or a view of it, or an inner loop's result that
/// does so).
bool yieldsItsBuffer(scf::ForOp loop, unsigned i) {
  Value arg = loop.getRegionIterArgs()[i];
  Value y = cast<scf::YieldOp>(loop.getBody()->getTerminator()).getOperand(i);
  while (y != arg) {
    if (auto view = y.getDefiningOp<ViewLikeOpInterface>())
      y = view.getViewSource();
    else if (auto inner = y.getDefiningOp<scf::ForOp>();
             inner && yieldsItsBuffer(inner, cast<OpResult>(y).getResultNumber()))
      y = inner.getInitArgs()[cast<OpResult>(y).getResultNumber()];
    else
      return false;
  }
  return true;
}

/// A buffer carried through an scf.for: the one it starts from.
Value loopInit(Value v) {
  scf::ForOp loop;
  unsigned i = 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return {};
    i = arg.getArgNumber() - 1;
  } else if ((loop = v.getDefiningOp<scf::ForOp>())) {
    i = cast<OpResult>(v).getResultNumber();
  }
  if (!loop || !isa<MemRefType>(v.getType()) || !yieldsItsBuffer(loop, i))
    return {};
  return loop.getInitArgs()[i];
}

bool isFunctionArgument(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner()->isEntryBlock() && isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// Which buffer of the plan a function argument is: its mt.buffer,
/// mt.param, mt.accumulator_of or mt.batch attribute, null when none.
Attribute identityOf(Value root) {
  auto arg = cast<BlockArgument>(root);
  auto fn = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  for (StringRef name : {"mt.buffer", "mt.param", "mt.accumulator_of", "mt.batch"})
    if (Attribute a = fn.getArgAttr(arg.getArgNumber(), name))
      return ArrayAttr::get(fn.getContext(), {StringAttr::get(fn.getContext(), name), a});
  return {};
}

bool isNoAliasArgument(Value root) {
  auto arg = cast<BlockArgument>(root);
  auto fn = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return static_cast<bool>(fn.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getNoAliasAttrName()));
}

} // namespace

BufferRange rangeOf(Value v) {
  BufferRange r;
  bool known = false, exact = true;
  while (true) {
    if (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
      if (auto bytes = dyn_cast<memref::ViewOp>(view.getOperation())) {
        std::optional<int64_t> shift = getConstantIntValue(bytes.getByteShift());
        MemRefType type = bytes.getType();
        if (!shift || !type.hasStaticShape() || !exact) {
          exact = false;
        } else if (!known) {
          r.begin = *shift;
          r.end = *shift + type.getNumElements() * type.getElementTypeBitWidth() / 8;
          known = true;
        } else {
          r.begin += *shift;
          r.end += *shift;
        }
      } else if (known) {
        exact = false; // a view of a view at an offset not followed
      }
      v = view.getViewSource();
    } else if (Value init = loopInit(v)) {
      // Loops carry the buffer they write in place (a row kernel's output).
      v = init;
    } else {
      break;
    }
  }
  r.root = v;
  r.resolved = isFunctionArgument(v) || v.getDefiningOp<memref::AllocOp>() ||
               v.getDefiningOp<memref::GetGlobalOp>();
  if (!exact)
    r.begin = 0, r.end = BufferRange::kWhole;
  return r;
}

bool mayOverlap(const BufferRange &a, const BufferRange &b) {
  if (!a.resolved || !b.resolved)
    return true;
  if (a.root != b.root) {
    if (!isFunctionArgument(a.root) || !isFunctionArgument(b.root))
      return false;
    if (isNoAliasArgument(a.root) && isNoAliasArgument(b.root))
      return false;
    Attribute ia = identityOf(a.root), ib = identityOf(b.root);
    return !ia || !ib || ia == ib;
  }
  return a.begin < b.end && b.begin < a.end;
}

namespace {

/// The elements a static subview covers within each period of its source:
/// [begin, end) modulo `period`.
struct Interleave {
  int64_t period = 0, begin = 0, end = 0;
};

std::optional<Interleave> interleaveOf(memref::SubViewOp view) {
  MemRefType type = view.getType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() || failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || strides.empty() || strides.back() != 1 ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t period = 0;
  for (auto [size, stride] : llvm::zip(type.getShape().drop_back(), ArrayRef(strides).drop_back()))
    if (size > 1)
      period = std::gcd(period, stride);
  int64_t width = type.getShape().back();
  if (period == 0) // one contiguous run: a period as long as the source
    period = std::numeric_limits<int64_t>::max() / 2;
  Interleave r{period, offset % period, offset % period + width};
  if (r.end > period)
    return std::nullopt;
  return r;
}

/// The subview `v` reshapes (a reshape covers the same elements), or null.
memref::SubViewOp reshapedSubView(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::SubViewOp>(def))
      return view;
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return {};
}

} // namespace

bool interleaveDisjointly(Value a, Value b) {
  memref::SubViewOp va = reshapedSubView(a), vb = reshapedSubView(b);
  if (!va || !vb || va.getSource() != vb.getSource())
    return false;
  std::optional<Interleave> ia = interleaveOf(va), ib = interleaveOf(vb);
  if (!ia || !ib || ia->period != ib->period)
    return false;
  return ia->end <= ib->begin || ib->end <= ia->begin;
}

} // namespace mt
