//===- TrainerStep.cpp - one optimizer step: reductions, norm, AdamW ------===//
#include "mt/Runtime/Trainer.h"

#include "TrainerInternals.h"
#include "mt/Runtime/Abi.h"

#include <chrono>
#include <cmath>
#include <cstring>

namespace mt {

using namespace trainer;

bool Trainer::reducePartialGradients(std::string &error) {
  if (tp_ == 1)
    return true;
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      if (!sl.partialOverTp)
        continue;
      Buffer &acc =
          *buffer(st.prefix + buffers::of(buffers::Role::GradAccumulator, sl.param->name()));
      if (!comm_->allReduce(
              tpGroup_, acc.data(), acc.numElements(), commType(sl.param->dtype()), ReduceOp::Sum,
              st.prefix + buffers::of(buffers::Role::GradAccumulator, sl.param->name()), error))
        return false;
    }
  return true;
}

bool Trainer::reduceTiedGradients(std::string &error) {
  // A parameter held by several stages (a tied embedding; T5's shared
  // embedding and relative position tables) gets the sum of every copy's
  // gradient: this rank's copies (interleaved stages can hold two) are added
  // first, the sum all-reduced once over the holding ranks, in the plan's
  // parameter order on every rank, then written back to each copy.
  if (cuda_ && !cuda_->synchronize(error)) // managed buffers, read on the host below
    return false;
  for (const plan::Parameter &p : plan_.parameters()) {
    std::vector<Buffer *> copies;
    const Slice *tied = nullptr;
    for (Stage &st : stages_)
      for (const Slice &sl : st.slices)
        if (sl.param == &p && !sl.tiedRanks.empty()) {
          copies.push_back(
              buffer(st.prefix + buffers::of(buffers::Role::GradAccumulator, p.name())));
          tied = &sl;
        }
    if (copies.empty())
      continue;
    Buffer &sum = *copies.front();
    bool wide = p.dtype() == plan::F64;
    for (size_t c = 1; c < copies.size(); ++c)
      for (int64_t i = 0; i < sum.numElements(); ++i) {
        if (wide)
          sum.as<double>()[i] += copies[c]->as<double>()[i];
        else
          sum.as<float>()[i] += copies[c]->as<float>()[i];
      }
    std::string what = buffers::of(buffers::Role::GradAccumulator, p.name());
    if (tied->tiedRanks.size() > 1 &&
        !comm_->allReduce(Group{tied->tiedRanks, "tied " + p.name()}, sum.data(), sum.numElements(),
                          commType(p.dtype()), ReduceOp::Sum, what, error))
      return false;
    for (size_t c = 1; c < copies.size(); ++c)
      std::memcpy(copies[c]->data(), sum.data(),
                  static_cast<size_t>(sum.numElements()) * (wide ? 8 : 4));
  }
  return true;
}

bool Trainer::reduceGradients(std::string &error) {
  bool distributed = plan_.config().parallel().distributed_optimizer();
  if (dp_ == 1 && !distributed)
    return true;
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      const plan::Parameter &p = *sl.param;
      Buffer &acc = *buffer(st.prefix + buffers::of(buffers::Role::GradAccumulator, p.name()));
      ElementType type = commType(p.dtype());
      std::string what = st.prefix + buffers::of(buffers::Role::GradAccumulator, p.name());
      if (reducedEarly_.count(what))
        continue; // reduced beside the backward
      if (!distributed) {
        if (!comm_->allReduce(dpGroup_, acc.data(), acc.numElements(), type, ReduceOp::Sum, what,
                              error))
          return false;
        continue;
      }
      Buffer *shard = buffer(st.prefix + buffers::of(buffers::Role::GradShard, p.name()));
      int64_t s = shardElements(sl), bytes = dtypeBytes(p.dtype());
      if (!shard || shard->numElements() != s) {
        error = "the plan's optimizer does not take " + std::to_string(s) + "-element shards of '" +
                st.prefix + p.name() + "'";
        return false;
      }
      // Zero-padded to dp equal pieces; rank i keeps the sum of piece i.
      std::vector<unsigned char> padded(static_cast<size_t>(s * dp_ * bytes), 0);
      std::memcpy(padded.data(), acc.data(), static_cast<size_t>(acc.numElements() * bytes));
      if (dp_ == 1)
        std::memcpy(shard->data(), padded.data(), padded.size());
      else if (!comm_->reduceScatter(dpGroup_, padded.data(), shard->data(), s, type, ReduceOp::Sum,
                                     what, error))
        return false;
    }
  return true;
}

bool Trainer::optimize(std::string &error) {
  bool distributed = plan_.config().parallel().distributed_optimizer();
  for (Stage &st : stages_) {
    if (!distributed) {
      if (!call(*st.optimizer, error))
        return false;
      continue;
    }
    for (const Slice &sl : st.slices) {
      Buffer &param = *buffer(sl.buffer);
      Buffer &shard = *buffer(st.prefix + buffers::of(buffers::Role::ParamShard, sl.param->name()));
      int64_t s = shardElements(sl), bytes = dtypeBytes(sl.param->dtype());
      int64_t begin = std::min(dpIndex_ * s, param.numElements());
      int64_t end = std::min(begin + s, param.numElements());
      auto *dst = static_cast<unsigned char *>(shard.data());
      std::memset(dst, 0, static_cast<size_t>(s * bytes));
      std::memcpy(dst, static_cast<unsigned char *>(param.data()) + begin * bytes,
                  static_cast<size_t>((end - begin) * bytes));
    }
    if (!call(*st.optimizer, error))
      return false;
    for (const Slice &sl : st.slices) {
      Buffer &param = *buffer(sl.buffer);
      Buffer &shard = *buffer(st.prefix + buffers::of(buffers::Role::ParamShard, sl.param->name()));
      int64_t s = shardElements(sl), bytes = dtypeBytes(sl.param->dtype());
      std::vector<unsigned char> padded(static_cast<size_t>(s * dp_ * bytes));
      if (dp_ == 1)
        std::memcpy(padded.data(), shard.data(), padded.size());
      else if (!comm_->allGather(
                   dpGroup_, shard.data(), padded.data(), s, commType(sl.param->dtype()),
                   st.prefix + buffers::of(buffers::Role::ParamShard, sl.param->name()), error))
        return false;
      std::memcpy(param.data(), padded.data(), static_cast<size_t>(param.numElements() * bytes));
    }
  }
  return true;
}

bool Trainer::step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error) {
  stats.arenaBytes = arenaBytes_;
  stats.savedActivationBytes = savedBytes_;
  const plan::Config &c = plan_.config();
  const plan::Optimizer &o = c.optimizer();
  // `micro` counts the global batch's micro-batches over all data-parallel
  // ranks; this rank runs every dp-th of them (Megatron's order: micro-step
  // k covers global micro-batches k*dp .. k*dp+dp-1, one per rank). Dropout
  // keys follow the global index, so masks do not depend on the layout.
  int64_t micro = c.global_batch_size() / c.micro_batch_size();
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      Buffer &acc =
          *buffer(st.prefix + buffers::of(buffers::Role::GradAccumulator, sl.param->name()));
      size_t bytes = static_cast<size_t>(acc.numElements() * dtypeBytes(sl.param->dtype()));
      if (cuda_)
        cuda_->zero(acc.data(), bytes); // on the GPU: the pages stay there
      else
        std::memset(acc.data(), 0, bytes);
    }
  std::vector<MicroBatch> batches(static_cast<size_t>(micro / dp_));
  for (MicroBatch &b : batches)
    if (!nextOwnBatch(data, b, error))
      return false;
  double lossSum = 0;
  reducedEarly_.clear();
  stats.exposedCommSeconds = 0;
  inStepCommSeconds_ = 0;
  if (numStages_ == 1) {
    Stage &st = stages_.front();
    for (int64_t k = 0; k < micro / dp_; ++k) {
      if (!setBatch(batches[static_cast<size_t>(k)], iteration, k * dp_ + dpIndex_, error))
        return false;
      // The last micro-batch's backward finishes the gradients.
      if (k + 1 == micro / dp_)
        startOverlappedReduction(st);
      bool called = callTrainStep(st, error);
      if (k + 1 == micro / dp_ || !called)
        called = finishOverlappedReduction(stats, !called, error);
      if (!called)
        return false;
      lossSum += scalar(std::string(buffers::kLoss));
      addMetrics();
    }
  } else {
    bool ran = runPipeline(iteration, batches, lossSum, error);
    if (!finishOverlappedReduction(stats, !ran, error))
      return false;
  }
  // The loss lives on the last stage; every rank reports it.
  auto commStart = std::chrono::steady_clock::now();
  if (!sumOver(ppGroup_, lossSum, "loss", error) || !sumOver(dpGroup_, lossSum, "loss", error) ||
      !reducePartialGradients(error) || !reduceTiedGradients(error) || !reduceGradients(error))
    return false;
  stats.exposedCommSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - commStart).count();
  if (comm_ == nullptr || comm_->size() == 1)
    stats.exposedCommSeconds = -1; // one rank: nothing to report
  stats.inStepCommSeconds = inStepCommSeconds_;
  stats.loss = lossSum / static_cast<double>(micro);
  if (!reportMetrics(micro, stats, error))
    return false;

  double sqNorm = 0;
  for (Stage &st : stages_) {
    if (!call(*st.gradSqNorm, error))
      return false;
    for (const Slice &sl : st.slices)
      if (sl.ownsNorm)
        sqNorm += scalar(st.prefix + buffers::of(buffers::Role::GradSquare, sl.param->name()));
  }
  // Every stage's squares, every tensor-parallel piece's, and with the
  // distributed optimizer every shard's.
  if (!sumOver(ppGroup_, sqNorm, "grad_sq_norm", error) ||
      !sumOver(tpGroup_, sqNorm, "grad_sq_norm", error) ||
      (c.parallel().distributed_optimizer() && !sumOver(dpGroup_, sqNorm, "grad_sq_norm", error)))
    return false;
  // With loss scaling the gradients are the scale times the true ones.
  double unscale = lossScaler_ ? lossScaler_->scale() : 1.0;
  stats.gradNorm = std::sqrt(sqNorm) / static_cast<double>(micro) / unscale;
  // The schedule counts updates, not iterations: a skipped step (an fp16
  // overflow, a non-finite loss) does not advance it (as Megatron's).
  stats.lr = schedule_.at(optimizerSteps_ + 1);
  stats.lossScale = lossScaler_ ? lossScaler_->scale() : 0;
  stats.skipped = !std::isfinite(stats.loss) || !std::isfinite(stats.gradNorm);
  if (lossScaler_ && (!stats.skipped || std::isfinite(stats.loss)))
    stats.overflow = lossScaler_->update(/*overflowed=*/stats.skipped);
  if (stats.skipped)
    return true;
  double clip = 1.0;
  if (o.clip_grad() > 0)
    clip = std::min(1.0, o.clip_grad() / (stats.gradNorm + 1e-6));
  ++optimizerSteps_;
  float *hyper = buffer(std::string(buffers::kHyper))->as<float>();
  double t = static_cast<double>(optimizerSteps_);
  double values[MT_ABI_HYPER_COUNT];
  values[MT_ABI_HYPER_LR] = stats.lr;
  values[MT_ABI_HYPER_BETA1] = o.adam_beta1();
  values[MT_ABI_HYPER_BETA2] = o.adam_beta2();
  values[MT_ABI_HYPER_EPS] = o.adam_eps();
  values[MT_ABI_HYPER_WEIGHT_DECAY] = o.weight_decay();
  values[MT_ABI_HYPER_BIAS_CORRECTION1] = 1.0 - std::pow(o.adam_beta1(), t);
  values[MT_ABI_HYPER_BIAS_CORRECTION2] = 1.0 - std::pow(o.adam_beta2(), t);
  values[MT_ABI_HYPER_GRAD_SCALE] = clip / static_cast<double>(micro) / unscale;
  for (int i = 0; i < MT_ABI_HYPER_COUNT; ++i)
    hyper[i] = static_cast<float>(values[i]);
  return optimize(error);
}

} // namespace mt
