//===- Trainer.cpp - runs a plan's training step on the CPU ----------------===//
#include "mt/Runtime/Trainer.h"

#include "TrainerInternals.h"

#include "mt/Plan/PlanEnums.h"
#include "mt/Plan/VerifyPlan.h"
#include "mt/Runtime/Initializer.h"
#include "mt/Runtime/PlanCode.h"
#include "mt/Schedule/PipelineSchedule.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <unistd.h>

namespace mt {

using namespace trainer;

Buffer *Trainer::buffer(const std::string &name) {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : it->second.get();
}

Buffer &Trainer::ensure(const plan::TensorSpec &spec) {
  auto &slot = buffers_[spec.name()];
  if (!slot) {
    slot = std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                    dtypeBytes(spec.dtype()), cuda_.get());
    if (!slot->allocated() && allocationError_.empty())
      allocationError_ = "buffer '" + spec.name() + "': " + slot->allocationError();
    dtypes_[spec.name()] = spec.dtype();
  }
  return *slot;
}

const plan::Function *Trainer::function(plan::Function::Role role, int64_t stage) const {
  for (const plan::Function &f : plan_.functions())
    if (f.role() == role && f.stage() == stage)
      return &f;
  return nullptr;
}

int64_t Trainer::stageRank(int64_t virtualStage) const {
  std::vector<int64_t> coords = mesh_.coords(rank_);
  coords[0] = virtualStage % pp_;
  return mesh_.rank(coords);
}

bool Trainer::load(const plan::Plan &plan, int64_t rank, Communicator *comm, std::string &error) {
  plan_ = plan;
  rank_ = rank;
  comm_ = comm;
  metricNames_.clear();
  for (const plan::Function &f : plan_.functions())
    if (f.role() == plan::Function::TRAIN_STEP)
      for (const plan::TensorSpec &out : f.outputs())
        if (buffers::isMetric(out.name()) &&
            std::find(metricNames_.begin(), metricNames_.end(), out.name()) == metricNames_.end())
          metricNames_.push_back(out.name());
  return checkPlan(error) && loadCode(error) && buildStages(error) && allocate(error);
}

bool Trainer::checkPlan(std::string &error) {
  // A plan read from a file was verified there; one built in memory is now.
  if (llvm::Error e = verifyPlan(plan_)) {
    error = llvm::toString(std::move(e));
    return false;
  }
  const plan::Config &c = plan_.config();
  mesh_ = planMesh(c);
  int64_t rank = rank_;
  Communicator *comm = comm_;
  if (mesh_.numRanks() > 1 && (!comm || comm->size() != mesh_.numRanks())) {
    error = "the plan needs " + std::to_string(mesh_.numRanks()) + " ranks but runs on " +
            std::to_string(comm ? comm->size() : 1);
    return false;
  }
  if (rank < 0 || rank >= mesh_.numRanks()) {
    error = "rank " + std::to_string(rank) + " is outside the plan's " +
            std::to_string(mesh_.numRanks()) + " ranks";
    return false;
  }
  pp_ = *mesh_.axisSize("pp");
  dp_ = *mesh_.axisSize("dp");
  ppIndex_ = mesh_.coords(rank)[0];
  dpIndex_ = mesh_.coords(rank)[1];
  tp_ = *mesh_.axisSize("tp");
  tpIndex_ = mesh_.coords(rank)[2];
  dpGroup_ = Group{mesh_.groupOf(rank, {"dp"}), "dp"};
  ppGroup_ = Group{mesh_.groupOf(rank, {"pp"}), "pp"};
  tpGroup_ = Group{mesh_.groupOf(rank, {"tp"}), "tp"};
  numStages_ = plan_.stages_size() ? plan_.stages_size() : 1;
  const plan::LossScaling &ls = c.loss_scaling();
  bool scaled = ls.initial_scale() > 0;
  if (scaled)
    lossScaler_.emplace(ls.initial_scale(), ls.min_scale(), ls.window(), ls.hysteresis());
  return true;
}

bool Trainer::loadCode(std::string &error) {
  if (!loadPlanCode(plan_, module_, cuda_, error) || !installCollectiveHooks(module_, error))
    return false;
  if (cuda_ && !cuda_->synchronize(error)) // the kernels' load
    return false;
  return true;
}

bool Trainer::buildStages(std::string &error) {
  // This rank's virtual stages and what each holds.
  std::map<std::string, const plan::Parameter *> byName;
  for (const plan::Parameter &p : plan_.parameters())
    byName[p.name()] = &p;
  std::map<std::string, std::vector<int64_t>> wholeHolders; // parameter -> virtual stages
  for (const plan::Stage &st : plan_.stages())
    for (const plan::StageParameter &sp : st.parameters())
      if (sp.layer_end() == 0)
        wholeHolders[sp.name()].push_back(st.index());
  for (int64_t k = ppIndex_; k < numStages_; k += pp_) {
    Stage st;
    st.index = k;
    st.chunk = k / pp_;
    st.prefix = buffers::stagePrefix(k, numStages_);
    // No "accumulate" when the step adds into the accumulators itself
    // (checked below, once the parameters are known).
    using plan::Function;
    for (Function::Role role :
         {Function::FORWARD, Function::TRAIN_STEP, Function::GRAD_SQ_NORM, Function::OPTIMIZER})
      if (!function(role, k)) {
        error = "the plan has no '" + std::string(nameOf(role)) + "' function for stage " +
                std::to_string(k);
        return false;
      }
    st.forward = function(Function::FORWARD, k);
    st.trainStep = function(Function::TRAIN_STEP, k);
    st.eval = function(Function::EVAL, k);
    st.accumulate = function(Function::ACCUMULATE, k);
    st.gradSqNorm = function(Function::GRAD_SQ_NORM, k);
    st.optimizer = function(Function::OPTIMIZER, k);
    auto addSlice = [&](const plan::Parameter &p, int64_t begin, int64_t end) -> bool {
      Slice sl;
      sl.param = &p;
      sl.buffer = st.prefix + p.name();
      sl.layout = shardOf(p, begin, end, tpIndex_);
      std::string bad = sl.layout.check();
      if (!bad.empty()) {
        error = "parameter '" + p.name() + "' cannot be laid out on rank " + std::to_string(rank_) +
                ": " + bad;
        return false;
      }
      sl.shape = sl.layout.localShape();
      sl.elements = sl.layout.numLocalElements();
      for (const std::string &axis : p.grad_partial_over()) {
        if (axis != "tp" || p.has_tp_shard()) {
          error = "the plan is corrupt: parameter '" + p.name() +
                  "' has a partial gradient over '" + axis +
                  "'; only replicated parameters can have one, over tp";
          return false;
        }
        sl.partialOverTp = true;
      }
      // A parameter replicated over tensor-parallel ranks counts once in the
      // gradient norm.
      sl.ownsNorm = p.has_tp_shard() || tpIndex_ == 0;
      auto holders = wholeHolders.find(p.name());
      if (end == 0 && holders != wholeHolders.end() && holders->second.size() > 1) {
        sl.ownsNorm = sl.ownsNorm && holders->second.front() == k;
        for (int64_t h : holders->second)
          sl.tiedRanks.push_back(stageRank(h));
        std::sort(sl.tiedRanks.begin(), sl.tiedRanks.end());
        sl.tiedRanks.erase(std::unique(sl.tiedRanks.begin(), sl.tiedRanks.end()),
                           sl.tiedRanks.end());
      }
      st.slices.push_back(sl);
      return true;
    };
    if (plan_.stages_size() == 0) {
      for (const plan::Parameter &p : plan_.parameters())
        if (!addSlice(p, 0, 0))
          return false;
    } else {
      const plan::Stage *desc = nullptr;
      for (const plan::Stage &d : plan_.stages())
        if (d.index() == k)
          desc = &d;
      if (!desc) {
        error = "the plan does not describe pipeline stage " + std::to_string(k);
        return false;
      }
      for (const plan::StageParameter &sp : desc->parameters()) {
        auto it = byName.find(sp.name());
        if (it == byName.end() || sp.layer_begin() < 0 || sp.layer_end() < sp.layer_begin() ||
            (sp.layer_end() > 0 &&
             (it->second->shape_size() == 0 || sp.layer_end() > it->second->shape(0)))) {
          error = "stage " + std::to_string(k) + " holds an unknown or out-of-range parameter '" +
                  sp.name() + "'";
          return false;
        }
        if (!addSlice(*it->second, sp.layer_begin(), sp.layer_end()))
          return false;
      }
    }
    if (!collectSaved(st, error))
      return false;
    // Every gradient is accumulated exactly once a micro-batch: by the step
    // in place, or by the accumulation function.
    std::set<std::string> inPlace(st.trainStep->updated_in_place().begin(),
                                  st.trainStep->updated_in_place().end());
    for (const Slice &sl : st.slices) {
      bool byStep = inPlace.count(st.prefix + buffers::of(buffers::Role::GradAccumulator,
                                                          sl.param->name())) > 0;
      if (byStep == (st.accumulate != nullptr)) {
        error = "the plan is corrupt: the gradient of '" + sl.param->name() + "' on stage " +
                std::to_string(k) + " is accumulated " + (byStep ? "twice" : "by nothing") +
                " (train_step " + (byStep ? "updates" : "does not update") +
                " its accumulator in place, and there is " + (st.accumulate ? "an" : "no") +
                " accumulate function)";
        return false;
      }
    }
    stages_.push_back(std::move(st));
  }
  return true;
}

bool Trainer::allocate(std::string &error) {
  const plan::Config &c = plan_.config();
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      const plan::Parameter &p = *sl.param;
      plan::TensorSpec spec;
      spec.set_name(sl.buffer);
      for (int64_t d : sl.shape)
        spec.add_shape(d);
      spec.set_dtype(p.dtype());
      Buffer &b = ensure(spec);
      InitKind kind = p.init().kind() == plan::Init::NORMAL  ? InitKind::Normal
                      : p.init().kind() == plan::Init::ZEROS ? InitKind::Zeros
                                                             : InitKind::Ones;
      // Keyed by the global element index: a stage's slice gets exactly the
      // values the unsplit tensor has there.
      uint64_t key = parameterKey(c.seed(), p.name());
      for (int64_t i = 0; i < sl.elements; ++i) {
        double v = initialValue(kind, p.init().std(), key,
                                static_cast<uint64_t>(sl.layout.globalIndex(i)));
        if (p.dtype() == plan::F64)
          b.as<double>()[i] = v;
        else
          b.as<float>()[i] = static_cast<float>(v);
      }
      // Gradients accumulate at the slice's size; the optimizer state takes
      // the shapes the optimizer function declares (shards with the
      // distributed optimizer), zero-initialized below.
      spec.set_name(st.prefix + buffers::of(buffers::Role::GradAccumulator, p.name()));
      ensure(spec);
    }
  for (const plan::Function &f : plan_.functions()) {
    if (f.stage() % pp_ != ppIndex_)
      continue;
    for (const std::string &name : f.updated_in_place())
      if (std::none_of(f.inputs().begin(), f.inputs().end(),
                       [&](const plan::TensorSpec &in) { return in.name() == name; })) {
        error = "the plan is corrupt: function " + f.name() + " updates '" + name +
                "' in place but has no such input";
        return false;
      }
    // Saved activations come in sets per micro-batch (allocateSaved).
    for (const auto *specs : {&f.inputs(), &f.outputs()})
      for (const auto &s : *specs)
        if (!buffers::isSaved(s.name()))
          ensure(s);
    if (f.arena_bytes() < 0) {
      error = "the plan is corrupt: function " + f.name() + " has an arena of " +
              std::to_string(f.arena_bytes()) + " bytes";
      return false;
    }
    arenaBytes_ = std::max(arenaBytes_, f.arena_bytes());
  }
  if (!allocateSaved(error))
    return false;
  // One arena for all of this rank's functions: they run one at a time and
  // keep nothing in it between calls.
  arena_ = std::make_unique<Buffer>(std::vector<int64_t>{arenaBytes_}, 1, cuda_.get());
  if (!arena_->allocated() && allocationError_.empty())
    allocationError_ =
        "the arena of " + std::to_string(arenaBytes_) + " bytes: " + arena_->allocationError();
  if (!allocationError_.empty()) {
    error = "out of GPU memory: " + allocationError_;
    return false;
  }
  const plan::Optimizer &o = c.optimizer();
  // Unspecified (plans of tools that set no schedule): cosine, mtc's default.
  LrSchedule::Decay decay =
      o.lr_decay_style() == plan::Optimizer::CONSTANT ? LrSchedule::Decay::Constant
      : o.lr_decay_style() == plan::Optimizer::LINEAR ? LrSchedule::Decay::Linear
                                                      : LrSchedule::Decay::Cosine;
  schedule_ = LrSchedule{o.lr(), o.min_lr(), o.lr_warmup_iters(), o.lr_decay_iters(), decay};
  return true;
}

bool Trainer::callTrainStep(Stage &st, std::string &error) {
  return call(*st.trainStep, error) && (!st.accumulate || call(*st.accumulate, error));
}

bool Trainer::call(const plan::Function &fn, std::string &error) {
  // Outputs that overwrite an input (accumulators, optimizer state) go to a
  // scratch buffer first: compiled functions assume no aliasing.
  std::vector<Buffer *> args;
  std::vector<std::string> replaced;
  std::map<std::string, bool> isInput;
  for (const auto *specs : {&fn.inputs(), &fn.outputs()})
    for (const auto &s : *specs)
      if (buffers::isSaved(s.name()) && !buffer(s.name())) {
        error = "function " + fn.name() + " runs without its saved activations '" + s.name() +
                "' in place (a pipeline schedule out of step with the plan)";
        return false;
      }
  for (const auto &s : fn.inputs()) {
    args.push_back(&ensure(s));
    isInput[s.name()] = true;
    // Shared stage code takes its caller's first layer.
    if (buffers::unstaged(s.name()) == buffers::kLayerOffset)
      args.back()->as<int64_t>()[0] = fn.layer_offset();
  }
  for (const auto &s : fn.outputs()) {
    if (isInput.count(s.name())) {
      plan::TensorSpec scratch = s;
      scratch.set_name(s.name() + "#next");
      args.push_back(&ensure(scratch));
      replaced.push_back(s.name());
    } else {
      args.push_back(&ensure(s));
    }
  }
  args.push_back(arena_.get());
  if (!allocationError_.empty()) {
    error = "out of GPU memory: " + allocationError_;
    return false;
  }
  if (cuda_ && !cuda_->bindThread(error))
    return false;
  // Each function's calls alternate two patterns.
  uint8_t pattern = (arenaCalls_[fn.name()]++ % 2) ? 0x5A : 0xA5;
  if (measureArena_)
    std::memset(arena_->data(), pattern, static_cast<size_t>(arenaBytes_));
  CollectiveContext collectives{comm_, &mesh_, rank_, fn.name(), "", cuda_.get(), activeGradients_};
  collectives.queueStarted =
      comm_ && (overlapTpComm_ == "true" ||
                (overlapTpComm_ == "auto" && comm_->transport().name() == "mpi"));
  {
    CollectiveScope scope(collectives);
    bool called = module_.call(fn.entry().empty() ? fn.name() : fn.entry(), args, error);
    collectives.finish();
    inStepCommSeconds_ += collectives.blockedSeconds;
    if (!called)
      return false;
  }
  // The host reads what the GPU wrote (losses, norms) after this.
  if (cuda_ && !cuda_->synchronize(error)) {
    error = "function " + fn.name() + ": " + error;
    return false;
  }
  if (measureArena_) {
    const uint8_t *bytes = arena_->as<uint8_t>();
    int64_t reached = arenaBytes_;
    while (reached > 0 && bytes[reached - 1] == pattern)
      --reached;
    int64_t &most = arenaReached_[fn.name()];
    most = std::max(most, reached);
  }
  if (!collectives.error.empty()) {
    error = collectives.error;
    return false;
  }
  for (const std::string &name : replaced)
    std::swap(buffers_[name], buffers_[name + "#next"]);
  return true;
}

bool Trainer::setBatch(const MicroBatch &batch, int64_t iteration, int64_t micro,
                       std::string &error) {
  const plan::Config &c = plan_.config();
  // An encoder-decoder model's labels and loss mask are the decoder's.
  size_t n = static_cast<size_t>(c.micro_batch_size() * c.seq_length());
  size_t targets = c.decoder_seq_length() > 0
                       ? static_cast<size_t>(c.micro_batch_size() * c.decoder_seq_length())
                       : n;
  if (batch.tokens.size() != n || batch.labels.size() != targets ||
      batch.lossMask.size() != targets) {
    error = "a micro-batch must hold " + std::to_string(n) + " tokens and " +
            std::to_string(targets) + " labels and mask values";
    return false;
  }
  for (const auto &[name, values] : {std::pair<std::string, const std::vector<int32_t> *>{
                                         buffers::batch("tokens"), &batch.tokens},
                                     {buffers::batch("labels"), &batch.labels}}) {
    Buffer *b = buffer(name);
    if (!b)
      continue;
    for (size_t i = 0; i < values->size(); ++i) {
      if ((*values)[i] < 0 || (*values)[i] >= c.vocab_size()) {
        error = name + " holds id " + std::to_string((*values)[i]) +
                " outside the model's vocabulary of " + std::to_string(c.vocab_size());
        return false;
      }
      b->as<int32_t>()[i] = (*values)[i];
    }
  }
  // Dropout masks are keyed by (seed, site, layer, position); the seed is a
  // function of the run's seed and the micro-batch's place in training,
  // never of the rank.
  if (Buffer *b = buffer(buffers::batch("dropout_seed")))
    b->as<int64_t>()[0] = static_cast<int64_t>(
        splitmix64(c.seed() ^ splitmix64(static_cast<uint64_t>(iteration) << 20 |
                                         static_cast<uint64_t>(micro))));
  if (Buffer *b = buffer(buffers::batch("loss_scale")))
    b->as<float>()[0] = static_cast<float>(lossScaler_ ? lossScaler_->scale() : 1.0);
  if (Buffer *b = buffer(buffers::batch("loss_mask")))
    for (size_t i = 0; i < targets; ++i) {
      if (dtypes_[buffers::batch("loss_mask")] == plan::F64)
        b->as<double>()[i] = batch.lossMask[i];
      else
        b->as<float>()[i] = batch.lossMask[i];
    }
  return setModelInputs(batch, error);
}

bool Trainer::setModelInputs(const MicroBatch &batch, std::string &error) {
  static const std::set<std::string> kFilledByTrainer = {
      buffers::batch("tokens"), buffers::batch("labels"), buffers::batch("loss_mask"),
      buffers::batch("dropout_seed"), buffers::batch("loss_scale")};
  for (auto &[name, holder] : buffers_) {
    if (!buffers::isBatch(name) || kFilledByTrainer.count(name))
      continue;
    std::string what = name.substr(buffers::batch("").size());
    auto it = batch.inputs.find(what);
    if (it == batch.inputs.end()) {
      error = "the model takes batch input '" + what + "', which this data does not provide" +
              " (BERT's token_types, padding_mask, sop_labels and sop_mask come from a BERT "
              "dataset: mt-data --split-sentences with a WordPiece vocabulary)";
      return false;
    }
    const std::vector<int32_t> &values = it->second;
    Buffer &b = *holder;
    if (static_cast<int64_t>(values.size()) != b.numElements()) {
      error = "batch input '" + what + "' holds " + std::to_string(values.size()) +
              " values; the plan's buffer holds " + std::to_string(b.numElements());
      return false;
    }
    plan::DType type = dtypes_[name];
    for (size_t i = 0; i < values.size(); ++i) {
      switch (type) {
      case plan::I32:
        b.as<int32_t>()[i] = values[i];
        break;
      case plan::I64:
        b.as<int64_t>()[i] = values[i];
        break;
      case plan::I1:
        b.as<uint8_t>()[i] = values[i] != 0;
        break;
      case plan::F64:
        b.as<double>()[i] = values[i];
        break;
      case plan::F32:
        b.as<float>()[i] = static_cast<float>(values[i]);
        break;
      default:
        error = "batch input '" + what + "' is " + plan::DType_Name(type) +
                ": mt-run fills batch inputs as integers, flags or f32/f64 weights";
        return false;
      }
    }
  }
  return true;
}

void Trainer::addMetrics() {
  metricSums_.resize(metricNames_.size(), 0.0);
  for (size_t i = 0; i < metricNames_.size(); ++i)
    if (buffer(metricNames_[i]))
      metricSums_[i] += scalar(metricNames_[i]);
}

bool Trainer::reportMetrics(int64_t micro, StepStats &stats, std::string &error) {
  metricSums_.resize(metricNames_.size(), 0.0);
  stats.metrics.clear();
  for (size_t i = 0; i < metricNames_.size(); ++i) {
    double sum = metricSums_[i];
    if (!sumOver(ppGroup_, sum, metricNames_[i], error) ||
        !sumOver(dpGroup_, sum, metricNames_[i], error))
      return false;
    stats.metrics.emplace_back(metricNames_[i].substr(buffers::metric("").size()),
                               sum / static_cast<double>(micro));
  }
  std::fill(metricSums_.begin(), metricSums_.end(), 0.0);
  return true;
}

double Trainer::scalar(const std::string &name) {
  return readScalar(*buffer(name), dtypes_[name], 0);
}

bool Trainer::nextOwnBatch(BatchSource &data, MicroBatch &batch, std::string &error) {
  const plan::Config &c = plan_.config();
  MicroBatch other;
  for (int64_t j = 0; j < dp_; ++j)
    if (!data.next(c.micro_batch_size(), c.seq_length(), j == dpIndex_ ? batch : other, error))
      return false;
  return true;
}

bool Trainer::sumOver(const Group &group, double &value, const std::string &what,
                      std::string &error) {
  if (group.ranks.size() <= 1)
    return true;
  return comm_->allReduce(group, &value, 1, ElementType::F64, ReduceOp::Sum, what, error);
}

TensorShard Trainer::shardOf(const plan::Parameter &p, int64_t begin, int64_t end,
                             int64_t tpIndex) const {
  TensorShard shard(std::vector<int64_t>(p.shape().begin(), p.shape().end()));
  if (end > 0)
    shard.layers(begin, end);
  if (p.has_tp_shard() && tp_ > 1)
    shard.split(p.tp_shard().dim(), tp_, tpIndex, std::max<int64_t>(p.tp_shard().segments(), 1));
  return shard;
}

} // namespace mt
