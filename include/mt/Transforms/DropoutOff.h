//===- DropoutOff.h - a function as it runs with dropout off ---*- C++ -*-===//
//
// Evaluation and inference run a model with dropout off (Megatron evaluates
// in eval mode): every mt.dropout passes its input through, and a fused
// mt.bias_dropout_add becomes the two adds it stands for.
//
//===----------------------------------------------------------------------===//
#ifndef MT_TRANSFORMS_DROPOUTOFF_H
#define MT_TRANSFORMS_DROPOUTOFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mt {

void turnDropoutOff(mlir::func::FuncOp fn);

} // namespace mt

#endif // MT_TRANSFORMS_DROPOUTOFF_H
