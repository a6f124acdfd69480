//===- OptimizerStep.cpp - gradient norm, clipping, AdamW -----------------===//
#include "mt/Runtime/Training/OptimizerStep.h"

#include "TrainerInternals.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mt {

using namespace trainer;

std::array<double, MT_ABI_HYPER_COUNT> hyperParameters(const plan::Optimizer &o, int64_t step,
                                                       double lr, double gradScale) {
  double t = static_cast<double>(step);
  std::array<double, MT_ABI_HYPER_COUNT> values{};
  values[MT_ABI_HYPER_LR] = lr;
  values[MT_ABI_HYPER_BETA1] = o.adam_beta1();
  values[MT_ABI_HYPER_BETA2] = o.adam_beta2();
  values[MT_ABI_HYPER_EPS] = o.adam_eps();
  values[MT_ABI_HYPER_WEIGHT_DECAY] = o.weight_decay();
  values[MT_ABI_HYPER_BIAS_CORRECTION1] = 1.0 - std::pow(o.adam_beta1(), t);
  values[MT_ABI_HYPER_BIAS_CORRECTION2] = 1.0 - std::pow(o.adam_beta2(), t);
  values[MT_ABI_HYPER_GRAD_SCALE] = gradScale;
  return values;
}

void OptimizerStep::configure(const plan::Config &c) {
  optimizer_ = c.optimizer();
  distributed_ = c.parallel().distributed_optimizer();
  const plan::Optimizer &o = optimizer_;
  // Unspecified (plans of tools that set no schedule): cosine, mtc's default.
  LrSchedule::Decay decay =
      o.lr_decay_style() == plan::Optimizer::CONSTANT ? LrSchedule::Decay::Constant
      : o.lr_decay_style() == plan::Optimizer::LINEAR ? LrSchedule::Decay::Linear
                                                      : LrSchedule::Decay::Cosine;
  schedule_ = LrSchedule{o.lr(), o.min_lr(), o.lr_warmup_iters(), o.lr_decay_iters(), decay};
  const plan::LossScaling &ls = c.loss_scaling();
  scaler_.reset();
  if (ls.initial_scale() > 0)
    scaler_.emplace(ls.initial_scale(), ls.min_scale(), ls.window(), ls.hysteresis());
}

bool OptimizerStep::gradientSquares(const std::vector<LocalStage> &stages, double &sqNorm,
                                    std::string &error) {
  sqNorm = 0;
  for (const LocalStage &st : stages) {
    if (!runner_.call(*st.gradSqNorm, error))
      return false;
    for (const ParameterSlice &sl : params_.slices())
      if (sl.stage == st.index && sl.ownsNorm)
        sqNorm += buffers_.read(sl.named(buffers::Role::GradSquare));
  }
  // Every stage's squares, every tensor-parallel piece's, and with the
  // distributed optimizer every shard's.
  Communicator *comm = place_.comm;
  return sumOver(comm, place_.ppGroup, sqNorm, "grad_sq_norm", error) &&
         sumOver(comm, place_.tpGroup, sqNorm, "grad_sq_norm", error) &&
         (!distributed_ || sumOver(comm, place_.dpGroup, sqNorm, "grad_sq_norm", error));
}

bool OptimizerStep::apply(const std::vector<LocalStage> &stages, int64_t micro, double sqNorm,
                          StepStats &stats, std::string &error) {
  // With loss scaling the gradients are the scale times the true ones.
  double unscale = lossScale();
  stats.gradNorm = std::sqrt(sqNorm) / static_cast<double>(micro) / unscale;
  // The schedule counts updates, not iterations: a skipped step (an fp16
  // overflow, a non-finite loss) does not advance it (as Megatron's).
  stats.lr = schedule_.at(steps_ + 1);
  stats.lossScale = scaler_ ? scaler_->scale() : 0;
  stats.skipped = !std::isfinite(stats.loss) || !std::isfinite(stats.gradNorm);
  if (scaler_ && (!stats.skipped || std::isfinite(stats.loss)))
    stats.overflow = scaler_->update(/*overflowed=*/stats.skipped);
  if (stats.skipped)
    return true;
  double clip = 1.0;
  if (optimizer_.clip_grad() > 0)
    clip = std::min(1.0, optimizer_.clip_grad() / (stats.gradNorm + 1e-6));
  ++steps_;
  std::array<double, MT_ABI_HYPER_COUNT> values =
      hyperParameters(optimizer_, steps_, stats.lr, clip / static_cast<double>(micro) / unscale);
  float *hyper = buffers_.find(std::string(buffers::kHyper))->as<float>();
  for (int i = 0; i < MT_ABI_HYPER_COUNT; ++i)
    hyper[i] = static_cast<float>(values[static_cast<size_t>(i)]);
  return update(stages, error);
}

bool OptimizerStep::update(const std::vector<LocalStage> &stages, std::string &error) {
  int64_t dp = place_.dp;
  for (const LocalStage &st : stages) {
    if (!distributed_) {
      if (!runner_.call(*st.optimizer, error))
        return false;
      continue;
    }
    // This rank's shard of each parameter in, the updated shards of all
    // data-parallel ranks back.
    for (const ParameterSlice &sl : params_.slices()) {
      if (sl.stage != st.index)
        continue;
      Buffer &param = *buffers_.find(sl.buffer);
      Buffer &shard = *buffers_.find(sl.named(buffers::Role::ParamShard));
      int64_t s = sl.shardElements(dp), bytes = dtypeBytes(sl.param->dtype());
      int64_t begin = std::min(place_.dpIndex * s, param.numElements());
      int64_t end = std::min(begin + s, param.numElements());
      auto *dst = static_cast<unsigned char *>(shard.data());
      std::memset(dst, 0, static_cast<size_t>(s * bytes));
      std::memcpy(dst, static_cast<unsigned char *>(param.data()) + begin * bytes,
                  static_cast<size_t>((end - begin) * bytes));
    }
    if (!runner_.call(*st.optimizer, error))
      return false;
    for (const ParameterSlice &sl : params_.slices()) {
      if (sl.stage != st.index)
        continue;
      Buffer &param = *buffers_.find(sl.buffer);
      Buffer &shard = *buffers_.find(sl.named(buffers::Role::ParamShard));
      int64_t s = sl.shardElements(dp), bytes = dtypeBytes(sl.param->dtype());
      size_t wholeBytes = static_cast<size_t>(param.numElements() * bytes);
      if (nccl_) {
        // Gathered into the scratch buffer and copied out in stream order.
        unsigned char *padded = nccl_->scratch(static_cast<size_t>(s * dp * bytes), gpu_, error);
        if (!padded ||
            !nccl_->allGather(shard.data(), padded, s, commType(sl.param->dtype()),
                              MT_ABI_AXIS_DP, gpu_ ? gpu_->stream() : nullptr,
                              sl.named(buffers::Role::ParamShard), error) ||
            !copyOnStream(gpu_, param.data(), padded, wholeBytes, error))
          return false;
        continue;
      }
      std::vector<unsigned char> padded(static_cast<size_t>(s * dp * bytes));
      if (dp == 1)
        std::memcpy(padded.data(), shard.data(), padded.size());
      else if (!place_.comm->allGather(place_.dpGroup, shard.data(), padded.data(), s,
                                       commType(sl.param->dtype()),
                                       sl.named(buffers::Role::ParamShard), error))
        return false;
      std::memcpy(param.data(), padded.data(), wholeBytes);
    }
  }
  // The gathered parameters are copied in on the GPU's stream: what reads
  // them on the host next (a checkpoint, a recording) waits for it here.
  return !(distributed_ && nccl_ && gpu_) || gpu_->synchronize(error);
}

} // namespace mt
