//===- BufferNames.h - the names of a plan's runtime buffers ---*- C++ -*-===//
//
// A plan names each function input and output; the runtime gives every
// distinct name one buffer, so the names are how compiled functions share
// data (a train step's gradient accumulators are the optimizer's inputs).
// They are built and read here only: mtc's plan builder, the memory
// report, the trainer and checkpoints agree by construction.
//
//   <parameter>                    the parameter itself
//   grad:<p>  grad_acc:<p>         one micro-batch's gradient, the accumulated one
//   grad_shard:<p> param_shard:<p> this rank's ZeRO shards
//   grad_sq:<p>                    the gradient's squared norm
//   exp_avg:<p>  exp_avg_sq:<p>    AdamW's moments
//   batch:<what>                   tokens, labels, loss_mask, dropout_seed, loss_scale
//   loss, hyper                    the loss and the optimizer's hyper-parameters
//   metric:<name>                  a metric the model returns beside the loss
//   act_in act_out act_in_grad act_out_grad   pipeline stages' activations
//   kv_cache:k.<n> kv_cache:v.<n>  attention site n's KV cache (inference)
//   batch:next_token  next_logits  the decode's token and logits (inference;
//                                  the prefill takes batch:tokens, gives logits)
//
// In a pipelined plan, stage k's buffers are prefixed "s<k>/", except the
// batch, the loss and the hyper-parameters, which every stage shares.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_BUFFERNAMES_H
#define MT_PLAN_BUFFERNAMES_H

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace mt {
namespace buffers {

/// Per-parameter buffers, by what they hold.
enum class Role { Gradient, GradAccumulator, GradShard, GradSquare, ExpAvg, ExpAvgSq, ParamShard };

/// "grad_acc:" and so on.
std::string_view prefixOf(Role role);
/// The buffer of `role` for parameter `param` ("grad_acc:h.ln_1.weight").
std::string of(Role role, std::string_view param);
/// "batch:<what>".
std::string batch(std::string_view what);
/// "metric:<name>" (a model result marked mt.metric).
std::string metric(std::string_view name);
bool isMetric(std::string_view name);
bool isBatch(std::string_view name);

/// "kv_cache:k.0" for the cache argument marked mt.kv_cache = "k.0".
std::string kvCache(std::string_view which);
bool isKvCache(std::string_view name);
/// "saved:3": forward value 3 a pipeline stage keeps for its backward
/// (mt-split-stage-step); the runtime holds one per micro-batch in flight.
std::string saved(int64_t index);
bool isSaved(std::string_view name);
inline constexpr std::string_view kLogits = "logits";
inline constexpr std::string_view kNextLogits = "next_logits";
inline constexpr std::string_view kNextToken = "next_token";

inline constexpr std::string_view kLoss = "loss";
inline constexpr std::string_view kHyper = "hyper";
inline constexpr std::string_view kStageInput = "act_in";
inline constexpr std::string_view kStageOutput = "act_out";
inline constexpr std::string_view kStageInputGrad = "act_in_grad";
inline constexpr std::string_view kStageOutputGrad = "act_out_grad";
/// The first dropout layer of a stage whose code is shared
/// (plan::Function.layer_offset); the runtime fills it.
inline constexpr std::string_view kLayerOffset = "layer_offset";

/// "s<k>/" in a plan of more than one stage, else "".
std::string stagePrefix(int64_t stage, int64_t numStages);
/// `name` as stage `stage` of a pipelined plan holds it (shared buffers
/// keep their name).
std::string staged(std::string_view name, int64_t stage, bool pipelined);
/// `name` without its stage prefix.
std::string_view unstaged(std::string_view name);

/// What a buffer holds, as the memory report groups it: "parameters",
/// "gradients", "optimizer state" or "batch, stage and loss tensors".
std::string categoryOf(std::string_view name, const std::set<std::string> &params);

} // namespace buffers
} // namespace mt

#endif // MT_PLAN_BUFFERNAMES_H
