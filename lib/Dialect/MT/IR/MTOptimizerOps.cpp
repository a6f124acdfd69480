//===- MTOptimizerOps.cpp - verifiers of the optimizer updates -------------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"
#include "mt/Runtime/Abi.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

LogicalResult AdamWOp::verify() {
  if (!isFloatTensor(getParam()))
    return violates(*this, 1) << "the parameter and its state must be floating-point, got "
                              << getParam().getType();
  auto hyper = tensorType(getHyper());
  if (hyper.getRank() != 1 || hyper.getDimSize(0) != MT_ABI_HYPER_COUNT ||
      !hyper.getElementType().isF32())
    return violates(*this, 2) << "hyper must be tensor<8xf32> [lr, beta1, beta2, eps, "
                                 "weight_decay, bias_correction1, bias_correction2, "
                                 "grad_scale], got "
                              << hyper;
  return success();
}
