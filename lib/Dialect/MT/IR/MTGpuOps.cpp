//===- MTGpuOps.cpp - verifiers of lane_id and warp_mma --------------------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult LaneIdOp::verify() {
  // Tied to the task loop's induction variable so that a pass moving the op
  // cannot take it out of the loop whose iterations become warps.
  auto arg = dyn_cast<BlockArgument>(getTask());
  auto loop = arg ? dyn_cast_or_null<LoopLikeOpInterface>(arg.getOwner()->getParentOp())
                  : LoopLikeOpInterface();
  if (loop)
    if (std::optional<SmallVector<Value>> ivs = loop.getLoopInductionVars())
      if (llvm::is_contained(*ivs, getTask()))
        return success();
  return violates(*this, 1) << "the task must be the induction variable of an enclosing loop";
}

static bool isVectorOf(Type type, int64_t size, Type element) {
  auto v = dyn_cast<VectorType>(type);
  return v && v.getRank() == 1 && !v.isScalable() && v.getDimSize(0) == size &&
         v.getElementType() == element;
}

LogicalResult WarpMmaOp::verify() {
  if (getShape() != ArrayRef<int64_t>{16, 8, 16})
    return violates(*this, 1) << "shape must be [16, 8, 16] (m16n8k16)";
  Type element = getA().getType().getElementType();
  if (!(element.isBF16() || element.isF16()) || !isVectorOf(getA().getType(), 8, element) ||
      !isVectorOf(getB().getType(), 4, element))
    return violates(*this, 2) << "A must be vector<8xE> and B vector<4xE> with E bf16 or f16, got "
                              << getA().getType() << " and " << getB().getType();
  Type f32 = Float32Type::get(getContext());
  if (!isVectorOf(getC().getType(), 4, f32) || !isVectorOf(getResult().getType(), 4, f32))
    return violates(*this, 3) << "C and the result must be vector<4xf32>, got " << getC().getType()
                              << " and " << getResult().getType();
  return success();
}
