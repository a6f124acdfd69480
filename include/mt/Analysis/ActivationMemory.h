//===- ActivationMemory.h - what a training step keeps alive ---*- C++ -*-===//
//
// The compiler's own accounting of a training step's activations, read from
// the IR of a gradient function (forward ops, then the backward ops that
// mt-derive-gradients marks `mt.backward`):
//
// * saved activations: tensors the forward computes and the backward reads,
//   by layer (`mt.layer`) and by the op that defines them. These are what a
//   micro-batch keeps between its forward and its backward; Korthikanti et
//   al. 2022 count the same set. A tensor belongs to the layer whose
//   backward reads it.
// * liveness: the bytes of every tensor computed from the batch that is
//   alive after each op, and where the peak occurs.
//
// Parameters, values computed from parameters alone (a replicated weight
// marked per-rank) and the batch inputs are not activations.
//
//===----------------------------------------------------------------------===//
#ifndef MT_ANALYSIS_ACTIVATIONMEMORY_H
#define MT_ANALYSIS_ACTIVATIONMEMORY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mt {

struct SavedTensor {
  std::optional<int64_t> layer; // none: embedding, head or loss
  std::string producer;         // "mt.softmax", "stage input", ...
  std::string type;             // "2x4x16x16xbf16"
  int64_t bytes = 0;
};

struct ActivationMemory {
  std::vector<SavedTensor> saved; // in forward order
  int64_t savedBytes = 0;
  /// Peak of the live activation bytes over the step, and the op after
  /// which it occurs ("mt.softmax_grad in layer 3 (backward)").
  int64_t peakBytes = 0;
  std::string peakAt;

  /// Saved bytes of one layer (none: outside the layers).
  int64_t layerBytes(std::optional<int64_t> layer) const;
};

/// Bytes of one element as stored: sub-byte types (i1 masks) take a byte.
int64_t storageBytes(mlir::Type elementType);

/// The activations of `fn`: values computed from its non-parameter
/// arguments.
llvm::DenseSet<mlir::Value> activationValues(mlir::func::FuncOp fn);

/// Accounts for `grad`, a function built by mt-derive-gradients.
ActivationMemory analyzeActivations(mlir::func::FuncOp grad);

} // namespace mt

#endif // MT_ANALYSIS_ACTIVATIONMEMORY_H
