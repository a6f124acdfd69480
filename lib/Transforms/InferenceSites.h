//===- InferenceSites.h - what mt-build-inference rewrites ------*- C++ -*-===//
//
// The pieces of mt-build-inference shared by its decoder-only path
// (BuildInference.cpp) and its encoder-decoder path
// (CrossAttentionInference.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_TRANSFORMS_INFERENCESITES_H
#define MT_LIB_TRANSFORMS_INFERENCESITES_H

#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mt {

/// The batch argument named `what`, or null.
mlir::BlockArgument batchArgument(mlir::func::FuncOp fn, llvm::StringRef what);

/// An error on `op` that starts "mt-build-inference: ".
mlir::InFlightDiagnostic refuseForInference(mlir::Operation *op);

/// Erases every operation of `fn`'s body whose results nothing reads (the
/// loss, or the half of an encoder-decoder a function does not run),
/// collectives included.
void eraseDeadOps(mlir::func::FuncOp fn);

/// Erases the batch and parameter arguments nothing reads any more (what
/// only the loss, or the other half of an encoder-decoder, read), except
/// `keep`; returns how many.
mlir::FailureOr<unsigned> eraseUnusedInputs(mlir::func::FuncOp fn,
                                            llvm::ArrayRef<mlir::Value> keep);

/// The attention sites (mt.attention_scores) of an encoder-decoder's
/// cross-attention: queries that depend on `decoderTokens`, keys that do
/// not.
llvm::SmallVector<AttentionScoresOp> crossAttentionSites(mlir::func::FuncOp fn,
                                                         mlir::Value decoderTokens);

/// The mt.attention_context that reads the probabilities of `scores`
/// through an mt.softmax (and a bias between them), or null.
AttentionContextOp contextOf(AttentionScoresOp scores);

/// The encoder of `model` (an encoder-decoder) as `@<model>_encode`: the
/// encoder's batch arguments and parameters in, the keys and values of each
/// cross-attention site out (`mt.kv_cache = "ck.<n>"`, `"cv.<n>"`).
mlir::FailureOr<mlir::func::FuncOp> buildEncodeFunction(mlir::func::FuncOp model);

/// In `fn` (a clone of an encoder-decoder), each cross-attention site reads
/// its keys and values from new arguments `mt.kv_cache = "ck.<n>"` and
/// `"cv.<n>"`, [batch, heads, `encoderLength`, head_dim], which
/// buildEncodeFunction's results fill; the encoder is erased.
mlir::LogicalResult readCrossAttentionCaches(mlir::func::FuncOp fn, mlir::Value decoderTokens,
                                             int64_t encoderLength);

} // namespace mt

#endif // MT_LIB_TRANSFORMS_INFERENCESITES_H
