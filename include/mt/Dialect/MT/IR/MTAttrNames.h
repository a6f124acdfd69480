//===- MTAttrNames.h - the mt dialect's discardable attributes -*- C++ -*-===//
//
// The `mt.*` attributes passes put on functions, arguments, results and ops.
// The dialect verifies each one's value where it appears
// (MTDialect::verifyOperationAttribute and the region argument/result
// hooks, MTAttrVerifier.cpp); an `mt.` name not listed here is an error.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DIALECT_MT_IR_MTATTRNAMES_H
#define MT_DIALECT_MT_IR_MTATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mt {

/// The argument attribute that marks parameters.
inline constexpr llvm::StringLiteral kParamAttrName = "mt.param";

/// A derived function's model: `mt.model = @f` (mt-build-evaluation,
/// mt-build-optimizer).
inline constexpr llvm::StringLiteral kModelAttrName = "mt.model";
/// On the module: what each GPU kernel of a CUDA plan is (mt-map-to-gpu).
inline constexpr llvm::StringLiteral kKernelsAttrName = "mt.kernels";
/// A collective's label, the same on every rank (mt-number-collectives).
inline constexpr llvm::StringLiteral kCollectiveAttrName = "mt.collective";

/// Marks a function derived by mt-derive-gradients: `mt.gradient_of = @f`.
inline constexpr llvm::StringLiteral kGradientOfAttrName = "mt.gradient_of";

/// A gradient function's result: the gradient of parameter `mt.grad_of = "<name>"`...
inline constexpr llvm::StringLiteral kGradOfAttrName = "mt.grad_of";
/// ...which, with `mt.partial_over = ["tp"]`, is this rank's addend of a sum
/// over those mesh axes that the runtime completes once per step
/// (mt-defer-gradient-reductions).
inline constexpr llvm::StringLiteral kPartialOverAttrName = "mt.partial_over";

/// Gradient accumulation in the step (mt-fuse-gradient-accumulation): the
/// argument holding parameter `mt.accumulator_of = "<name>"`'s accumulated
/// gradient, and the result that is its update, `mt.in_place_of = <argument
/// number>`: written over that argument's buffer, not returned.
inline constexpr llvm::StringLiteral kAccumulatorOfAttrName = "mt.accumulator_of";
inline constexpr llvm::StringLiteral kInPlaceOfAttrName = "mt.in_place_of";

/// Inference (mt-build-inference): an argument holding attention site n's
/// KV cache, `mt.kv_cache = "k.<n>"` or `"v.<n>"`.
inline constexpr llvm::StringLiteral kKvCacheAttrName = "mt.kv_cache";

/// A loop whose iterations write disjoint parts of what it carries (a row
/// kernel's loop over rows): a parallel target may run them at once.
inline constexpr llvm::StringLiteral kIndependentIterationsAttrName = "mt.independent_iterations";
/// A loop whose iterations write disjoint elements and are each large
/// enough to be a thread's task (mt-parallelize-loops, CPU).
inline constexpr llvm::StringLiteral kParallelTasksAttrName = "mt.parallel_tasks";
/// A loop whose iterations are warp tasks written for one lane (mt.lane_id,
/// mt.warp_mma): mt-map-to-gpu runs each on a warp, this many warps a block.
inline constexpr llvm::StringLiteral kWarpTasksAttrName = "mt.warp_tasks";
/// A model result after the loss: a scalar the trainer reports beside it,
/// not differentiated (BERT's "lm loss" and "sop loss"): mt.metric = "<name>".
inline constexpr llvm::StringLiteral kMetricAttrName = "mt.metric";
/// A model argument the data loader (or trainer) fills: mt.batch = "tokens",
/// "labels", "loss_mask", "dropout_seed", "loss_scale".
inline constexpr llvm::StringLiteral kBatchAttrName = "mt.batch";
/// The loss scale (fp16): the backward starts from it instead of 1.
inline constexpr llvm::StringLiteral kLossScaleBatchName = "loss_scale";
/// A loop along one row inside such a loop, over the row's columns in
/// order: a GPU may spread the columns over a warp's lanes.
inline constexpr llvm::StringLiteral kAlongRowAttrName = "mt.along_row";

/// An op of an unrolled layer carries the model-wide layer index
/// (mt-unroll-layers); the adjoint ops mt-derive-gradients builds for it
/// inherit it and are marked as the backward pass.
inline constexpr llvm::StringLiteral kLayerAttrName = "mt.layer";
inline constexpr llvm::StringLiteral kBackwardAttrName = "mt.backward";
/// A backward op that computes a forward value again
/// (mt-recompute-activations).
inline constexpr llvm::StringLiteral kRecomputedAttrName = "mt.recomputed";
/// A gradient function's recomputation chosen under a budget
/// (granularity=auto): {budget, peak, flops, fits, cuts}.
inline constexpr llvm::StringLiteral kRecomputePlanAttrName = "mt.recompute_plan";

/// A bufferized function's temporaries live in one arena, its last
/// argument, of `mt.arena_bytes` bytes (mt-plan-buffers).
inline constexpr llvm::StringLiteral kArenaBytesAttrName = "mt.arena_bytes";

/// What a compiled function does for the runtime: `mt.role = #mt<role train_step>`.
inline constexpr llvm::StringLiteral kRoleAttrName = "mt.role";
/// A step function's argument or result as a runtime buffer:
/// `mt.buffer = #mt.buffer<exp_avg, "wte">` (mt-build-optimizer).
inline constexpr llvm::StringLiteral kBufferAttrName = "mt.buffer";

/// Pipeline stages (mt-split-pipeline): the argument that receives the
/// previous stage's activation...
inline constexpr llvm::StringLiteral kStageInputAttrName = "mt.stage_input";
/// On a batch argument of an encoder-decoder model: `"decoder"` when its
/// sequence dimension is the decoder's (mtc --decoder-seq-length).
inline constexpr llvm::StringLiteral kSequenceAttrName = "mt.sequence";
/// ...the argument of a stage's gradient function that receives the
/// cotangent of the stage's output...
inline constexpr llvm::StringLiteral kCotangentAttrName = "mt.cotangent";
/// ...the result that returns the cotangent of the stage input...
inline constexpr llvm::StringLiteral kStageInputGradAttrName = "mt.stage_input_grad";
/// ...the result of the gradient function that returns the stage's output
/// again (mt-split-stage-step makes it the forward's result)...
inline constexpr llvm::StringLiteral kStageOutputAttrName = "mt.stage_output";
/// ...a forward value kept from a stage's forward for its backward
/// (mt-split-stage-step): the forward's result and the backward's argument
/// `mt.saved = i`, and on the argument the op that made it...
inline constexpr llvm::StringLiteral kSavedAttrName = "mt.saved";
inline constexpr llvm::StringLiteral kSavedFromAttrName = "mt.saved_from";
/// ...and the stage function's attributes: its virtual stage index, the
/// number of virtual stages and the model it was cut from.
inline constexpr llvm::StringLiteral kStageAttrName = "mt.stage";
inline constexpr llvm::StringLiteral kNumStagesAttrName = "mt.num_stages";
inline constexpr llvm::StringLiteral kPipelineOfAttrName = "mt.pipeline_of";
/// Stages whose programs differ only in their layers share one compiled
/// function (mt-share-stage-programs): its dropout layers are relative to
/// the argument marked `mt.layer_offset` (a tensor<i64>), and the function
/// lists, in `mt.shared_code`, every function it runs for with that offset.
/// An outlined layer's offset argument (mt-outline-layers) is an i64.
inline constexpr llvm::StringLiteral kLayerOffsetAttrName = "mt.layer_offset";
/// On the module: mt-outline-layers leaves every layer inline (mtc
/// --outline-layers=false: a smaller arena, longer native compiles).
inline constexpr llvm::StringLiteral kLayersInlineAttrName = "mt.layers_inline";
inline constexpr llvm::StringLiteral kSharedCodeAttrName = "mt.shared_code";
/// A stacked parameter of a stage holds the model's layers from this index.
inline constexpr llvm::StringLiteral kFirstLayerAttrName = "mt.first_layer";

/// Tensor parallelism (mt-partition-tensor-parallel): a sharded parameter's
/// argument carries its #mt.sharding (the logical tensor's dimensions and the
/// mesh axes they are split over) and, when the split dimension is made of
/// several segments each split separately ([q; k; v]), their number.
inline constexpr llvm::StringLiteral kShardingAttrName = "mt.sharding";
inline constexpr llvm::StringLiteral kSegmentsAttrName = "mt.segments";
/// On a parameter padded along dimension 0 (mt-pad-vocab): its rows before
/// padding; the rows from there on are padding.
inline constexpr llvm::StringLiteral kUnpaddedRowsAttrName = "mt.unpadded_rows";

} // namespace mt

#endif // MT_DIALECT_MT_IR_MTATTRNAMES_H
