//===- Trainer.cpp - runs a plan's training step on the CPU ----------------===//
#include "mt/Runtime/Trainer.h"

#include "mt/Runtime/Initializer.h"
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

namespace {

bool hostHas(const std::string &feature) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (feature == "sse4.2") return __builtin_cpu_supports("sse4.2");
  if (feature == "avx") return __builtin_cpu_supports("avx");
  if (feature == "avx2") return __builtin_cpu_supports("avx2");
  if (feature == "fma") return __builtin_cpu_supports("fma");
  if (feature == "avx512f") return __builtin_cpu_supports("avx512f");
#endif
  return false;
}

std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

double readScalar(Buffer &b, plan::DType t, int64_t i) {
  return t == plan::F64 ? b.as<double>()[i] : b.as<float>()[i];
}

ElementType commType(plan::DType t) {
  return t == plan::F64 ? ElementType::F64 : ElementType::F32;
}

} // namespace

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

const plan::Function *Trainer::function(const std::string &role, int64_t stage) const {
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
  const plan::Config &c = plan_.config();
  mesh_ = planMesh(c);
  rank_ = rank;
  comm_ = comm;
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
  int64_t virtualStages = std::max<int64_t>(c.parallel().virtual_stages(), 1);
  if (numStages_ != pp_ * virtualStages) {
    error = "the plan has " + std::to_string(numStages_) + " pipeline stages but its layout asks for " +
            std::to_string(pp_) + " x " + std::to_string(virtualStages);
    return false;
  }
  if (c.micro_batch_size() < 1 || c.seq_length() < 1 || c.global_batch_size() < 1 ||
      c.global_batch_size() % (c.micro_batch_size() * dp_) != 0 || c.train_iters() < 1) {
    error = "the plan's batch configuration is inconsistent";
    return false;
  }
  // The trainer initializes, updates and checkpoints parameters in fp32 or
  // f64 and fills float batch inputs in the same; 16-bit storage would be
  // written past its end.
  for (const plan::Parameter &p : plan_.parameters())
    if (p.dtype() != plan::F32 && p.dtype() != plan::F64) {
      error = "parameter '" + p.name() + "' is stored in " + plan::DType_Name(p.dtype()) +
              ": mt-run trains parameters in F32 or F64 (write the model in f32; 16-bit "
              "compute keeps fp32 main parameters)";
      return false;
    }
  for (const plan::Function &f : plan_.functions())
    for (const plan::TensorSpec &in : f.inputs())
      if (in.name() == "batch:loss_mask" && in.dtype() != plan::F32 && in.dtype() != plan::F64) {
        error = "function " + f.name() + " takes the loss mask in " + plan::DType_Name(in.dtype()) +
                ": mt-run fills it in F32 or F64";
        return false;
      }
  bool scaled = false;
  for (const plan::Function &f : plan_.functions())
    for (const plan::TensorSpec &in : f.inputs())
      if (in.name() == "batch:loss_scale")
        scaled = true;
  const plan::LossScaling &ls = c.loss_scaling();
  if (scaled != (ls.initial_scale() > 0) ||
      (scaled && (!(ls.min_scale() > 0) || ls.min_scale() > ls.initial_scale() ||
                  ls.window() < 0 || ls.hysteresis() < 1))) {
    error = "the plan is corrupt: its loss scaling (initial " +
            std::to_string(ls.initial_scale()) + ", min " + std::to_string(ls.min_scale()) +
            ", window " + std::to_string(ls.window()) + ", hysteresis " +
            std::to_string(ls.hysteresis()) + ") does not match its functions (" +
            (scaled ? "which take" : "which do not take") + " a loss scale)";
    return false;
  }
  if (scaled)
    lossScaler_.emplace(ls.initial_scale(), ls.min_scale(), ls.window(), ls.hysteresis());
  const plan::CodeObject *native = nullptr;
  for (const plan::CodeObject &code : plan_.code())
    if (code.kind() == plan::CodeObject::SHARED_OBJECT)
      native = &code;
  if (!native) {
    error = "the plan has no native CPU code";
    return false;
  }
  std::string arch = native->target_triple().substr(0, native->target_triple().find('-'));
  if (arch != hostArch()) {
    error = "the plan was compiled for " + native->target_triple() + " but this machine is " +
            hostArch() + "; recompile it here";
    return false;
  }
  for (const std::string &f : native->required_features())
    if (!hostHas(f)) {
      error = "the plan's code uses the CPU feature '" + f + "' (compiled for " + native->cpu() +
              ") which this machine lacks; recompile it here";
      return false;
    }
  // CUDA: the runtime library and the kernel images first, since loading
  // the host code loads its kernels.
  if (planTargetsCuda(plan_) && !(cuda_ = CudaBackend::load(plan_, error)))
    return false;
  // dlopen needs a file: write the code, load it, remove the file.
  char path[] = "/tmp/mt-run-XXXXXX.so";
  int fd = mkstemps(path, 3);
  if (fd < 0 || write(fd, native->data().data(), native->data().size()) !=
                    static_cast<ssize_t>(native->data().size())) {
    error = "cannot stage the plan's native code in /tmp";
    if (fd >= 0)
      close(fd);
    return false;
  }
  close(fd);
  bool loaded = module_.load(path, error);
  unlink(path);
  if (!loaded || !installCollectiveHooks(module_, error))
    return false;
  if (cuda_ && !cuda_->synchronize(error)) // the kernels' load
    return false;

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
    st.prefix = numStages_ > 1 ? "s" + std::to_string(k) + "/" : "";
    // No "accumulate" when the step adds into the accumulators itself
    // (checked below, once the parameters are known).
    for (const char *role : {"forward", "train_step", "grad_sq_norm", "optimizer"})
      if (!function(role, k)) {
        error = std::string("the plan has no '") + role + "' function for stage " + std::to_string(k);
        return false;
      }
    st.forward = function("forward", k);
    st.trainStep = function("train_step", k);
    st.eval = function("eval", k);
    st.accumulate = function("accumulate", k);
    st.gradSqNorm = function("grad_sq_norm", k);
    st.optimizer = function("optimizer", k);
    auto addSlice = [&](const plan::Parameter &p, int64_t begin, int64_t end) -> bool {
      Slice sl;
      sl.param = &p;
      sl.buffer = st.prefix + p.name();
      sl.layout = shardOf(p, begin, end, tpIndex_);
      std::string bad = sl.layout.check();
      if (!bad.empty()) {
        error = "parameter '" + p.name() + "' cannot be laid out on rank " +
                std::to_string(rank_) + ": " + bad;
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
        sl.tiedRanks.erase(std::unique(sl.tiedRanks.begin(), sl.tiedRanks.end()), sl.tiedRanks.end());
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
            (sp.layer_end() > 0 && (it->second->shape_size() == 0 ||
                                    sp.layer_end() > it->second->shape(0)))) {
          error = "stage " + std::to_string(k) + " holds an unknown or out-of-range parameter '" +
                  sp.name() + "'";
          return false;
        }
        if (!addSlice(*it->second, sp.layer_begin(), sp.layer_end()))
          return false;
      }
    }
    // Every gradient is accumulated exactly once a micro-batch: by the step
    // in place, or by the accumulation function.
    std::set<std::string> inPlace(st.trainStep->updated_in_place().begin(),
                                  st.trainStep->updated_in_place().end());
    for (const Slice &sl : st.slices) {
      bool byStep = inPlace.count(st.prefix + "grad_acc:" + sl.param->name()) > 0;
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
        double v = initialValue(kind, p.init().std(), key, static_cast<uint64_t>(sl.layout.globalIndex(i)));
        if (p.dtype() == plan::F64)
          b.as<double>()[i] = v;
        else
          b.as<float>()[i] = static_cast<float>(v);
      }
      // Gradients accumulate at the slice's size; the optimizer state takes
      // the shapes the optimizer function declares (shards with the
      // distributed optimizer), zero-initialized below.
      spec.set_name(st.prefix + "grad_acc:" + p.name());
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
    for (const auto &s : f.inputs())
      ensure(s);
    for (const auto &s : f.outputs())
      ensure(s);
    if (f.arena_bytes() < 0) {
      error = "the plan is corrupt: function " + f.name() + " has an arena of " +
              std::to_string(f.arena_bytes()) + " bytes";
      return false;
    }
    arenaBytes_ = std::max(arenaBytes_, f.arena_bytes());
  }
  // One arena for all of this rank's functions: they run one at a time and
  // keep nothing in it between calls.
  arena_ = std::make_unique<Buffer>(std::vector<int64_t>{arenaBytes_}, 1, cuda_.get());
  if (!arena_->allocated() && allocationError_.empty())
    allocationError_ = "the arena of " + std::to_string(arenaBytes_) + " bytes: " +
                       arena_->allocationError();
  if (!allocationError_.empty()) {
    error = "out of GPU memory: " + allocationError_;
    return false;
  }
  const plan::Optimizer &o = c.optimizer();
  schedule_ = LrSchedule{o.lr(), o.min_lr(), o.lr_warmup_iters(), o.lr_decay_iters(),
                         o.lr_decay_style()};
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
  for (const auto &s : fn.inputs()) {
    args.push_back(&ensure(s));
    isInput[s.name()] = true;
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
  CollectiveContext collectives{comm_, &mesh_, rank_, fn.name(), "", cuda_.get()};
  {
    CollectiveScope scope(collectives);
    if (!module_.call(fn.name(), args, error))
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
  size_t n = static_cast<size_t>(c.micro_batch_size() * c.seq_length());
  if (batch.tokens.size() != n || batch.labels.size() != n || batch.lossMask.size() != n) {
    error = "a micro-batch must hold " + std::to_string(n) + " tokens, labels and mask values";
    return false;
  }
  for (const auto &[name, values] :
       {std::pair<const char *, const std::vector<int32_t> *>{"batch:tokens", &batch.tokens},
        {"batch:labels", &batch.labels}}) {
    Buffer *b = buffer(name);
    if (!b)
      continue;
    for (size_t i = 0; i < n; ++i) {
      if ((*values)[i] < 0 || (*values)[i] >= c.vocab_size()) {
        error = std::string(name) + " holds id " + std::to_string((*values)[i]) +
                " outside the model's vocabulary of " + std::to_string(c.vocab_size());
        return false;
      }
      b->as<int32_t>()[i] = (*values)[i];
    }
  }
  // Dropout masks are keyed by (seed, site, layer, position); the seed is a
  // function of the run's seed and the micro-batch's place in training,
  // never of the rank.
  if (Buffer *b = buffer("batch:dropout_seed"))
    b->as<int64_t>()[0] = static_cast<int64_t>(
        splitmix64(c.seed() ^ splitmix64(static_cast<uint64_t>(iteration) << 20 |
                                         static_cast<uint64_t>(micro))));
  if (Buffer *b = buffer("batch:loss_scale"))
    b->as<float>()[0] = static_cast<float>(lossScaler_ ? lossScaler_->scale() : 1.0);
  if (Buffer *b = buffer("batch:loss_mask"))
    for (size_t i = 0; i < n; ++i) {
      if (dtypes_["batch:loss_mask"] == plan::F64)
        b->as<double>()[i] = batch.lossMask[i];
      else
        b->as<float>()[i] = batch.lossMask[i];
    }
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

namespace {

/// Pipeline message channels: activations k -> k+1 on 2k, their gradients
/// k+1 -> k on 2k+1; evaluation and gathering use their own.
int activationChannel(int64_t boundary) { return static_cast<int>(2 * boundary); }
int gradientChannel(int64_t boundary) { return static_cast<int>(2 * boundary + 1); }
constexpr int kEvalChannelBase = 1 << 20;
constexpr int kGatherChannel = (1 << 21);

} // namespace

bool Trainer::runPipeline(int64_t iteration, const std::vector<MicroBatch> &batches,
                          double &lossSum, std::string &error) {
  int64_t m = static_cast<int64_t>(batches.size());
  int64_t virtualStages = numStages_ / pp_;
  PipelineSchedule schedule;
  if (virtualStages > 1)
    schedule = scheduleInterleaved(pp_, virtualStages, m, error);
  else
    schedule = schedule1F1B(pp_, m);
  if (schedule.empty())
    return false;
  // Each stage input is kept from its forward to its backward (the backward
  // recomputes the stage's forward from it).
  std::map<std::pair<int64_t, int64_t>, std::vector<unsigned char>> stash; // (chunk, micro)
  timeline_.clear();
  auto now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  for (const PipelineOp &op : schedule[static_cast<size_t>(ppIndex_)]) {
    TimelineEntry entry{ppIndex_, op, 0, 0};
    Stage &st = stages_[static_cast<size_t>(op.chunk)];
    int64_t k = st.index, i = op.microBatch;
    std::string micro = " (micro-batch " + std::to_string(i) + ")";
    if (!setBatch(batches[static_cast<size_t>(i)], iteration, i * dp_ + dpIndex_, error))
      return false;
    if (op.kind == PipelineOp::Forward) {
      if (k > 0) {
        Buffer &in = *buffer(st.prefix + "act_in");
        if (!comm_->recv(stageRank(k - 1), activationChannel(k - 1), in.data(), in.numElements(),
                         ElementType::F32, "activation into stage " + std::to_string(k) + micro,
                         error))
          return false;
        auto *bytes = static_cast<unsigned char *>(in.data());
        stash[{op.chunk, i}].assign(bytes, bytes + in.numElements() * 4);
      }
      // The last stage's forward is its backward's first half: nothing to
      // send on, so it runs once, in the backward.
      entry.start = now();
      if (isLastStage(st)) {
        entry.end = entry.start;
        timeline_.push_back(entry);
        continue;
      }
      if (!call(*st.forward, error))
        return false;
      entry.end = now();
      timeline_.push_back(entry);
      Buffer &out = *buffer(st.prefix + "act_out");
      if (!comm_->send(stageRank(k + 1), activationChannel(k), out.data(), out.numElements(),
                       ElementType::F32, "activation into stage " + std::to_string(k + 1) + micro,
                       error))
        return false;
    } else {
      if (!isLastStage(st)) {
        Buffer &g = *buffer(st.prefix + "act_out_grad");
        if (!comm_->recv(stageRank(k + 1), gradientChannel(k), g.data(), g.numElements(),
                         ElementType::F32, "gradient out of stage " + std::to_string(k + 1) + micro,
                         error))
          return false;
      }
      if (k > 0) {
        Buffer &in = *buffer(st.prefix + "act_in");
        auto &saved = stash[{op.chunk, i}];
        std::memcpy(in.data(), saved.data(), saved.size());
        stash.erase({op.chunk, i});
      }
      entry.start = now();
      if (!callTrainStep(st, error))
        return false;
      entry.end = now();
      timeline_.push_back(entry);
      if (isLastStage(st))
        lossSum += scalar("loss");
      if (k > 0) {
        Buffer &g = *buffer(st.prefix + "act_in_grad");
        if (!comm_->send(stageRank(k - 1), gradientChannel(k - 1), g.data(), g.numElements(),
                         ElementType::F32, "gradient out of stage " + std::to_string(k) + micro,
                         error))
          return false;
      }
    }
  }
  return true;
}

bool Trainer::reducePartialGradients(std::string &error) {
  if (tp_ == 1)
    return true;
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      if (!sl.partialOverTp)
        continue;
      Buffer &acc = *buffer(st.prefix + "grad_acc:" + sl.param->name());
      if (!comm_->allReduce(tpGroup_, acc.data(), acc.numElements(), commType(sl.param->dtype()),
                            ReduceOp::Sum, st.prefix + "grad_acc:" + sl.param->name(), error))
        return false;
    }
  return true;
}

bool Trainer::reduceTiedGradients(std::string &error) {
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      if (sl.tiedRanks.size() <= 1)
        continue;
      Buffer &acc = *buffer(st.prefix + "grad_acc:" + sl.param->name());
      Group group{sl.tiedRanks, "tied " + sl.param->name()};
      if (!comm_->allReduce(group, acc.data(), acc.numElements(), commType(sl.param->dtype()),
                            ReduceOp::Sum, "grad_acc:" + sl.param->name(), error))
        return false;
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
      Buffer &acc = *buffer(st.prefix + "grad_acc:" + p.name());
      ElementType type = commType(p.dtype());
      std::string what = st.prefix + "grad_acc:" + p.name();
      if (!distributed) {
        if (!comm_->allReduce(dpGroup_, acc.data(), acc.numElements(), type, ReduceOp::Sum, what,
                              error))
          return false;
        continue;
      }
      Buffer *shard = buffer(st.prefix + "grad_shard:" + p.name());
      int64_t s = shardElements(sl), bytes = dtypeBytes(p.dtype());
      if (!shard || shard->numElements() != s) {
        error = "the plan's optimizer does not take " + std::to_string(s) +
                "-element shards of '" + st.prefix + p.name() + "'";
        return false;
      }
      // Zero-padded to dp equal pieces; rank i keeps the sum of piece i.
      std::vector<unsigned char> padded(static_cast<size_t>(s * dp_ * bytes), 0);
      std::memcpy(padded.data(), acc.data(), static_cast<size_t>(acc.numElements() * bytes));
      if (dp_ == 1)
        std::memcpy(shard->data(), padded.data(), padded.size());
      else if (!comm_->reduceScatter(dpGroup_, padded.data(), shard->data(), s, type,
                                     ReduceOp::Sum, what, error))
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
      Buffer &shard = *buffer(st.prefix + "param_shard:" + sl.param->name());
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
      Buffer &shard = *buffer(st.prefix + "param_shard:" + sl.param->name());
      int64_t s = shardElements(sl), bytes = dtypeBytes(sl.param->dtype());
      std::vector<unsigned char> padded(static_cast<size_t>(s * dp_ * bytes));
      if (dp_ == 1)
        std::memcpy(padded.data(), shard.data(), padded.size());
      else if (!comm_->allGather(dpGroup_, shard.data(), padded.data(), s,
                                 commType(sl.param->dtype()),
                                 st.prefix + "param_shard:" + sl.param->name(), error))
        return false;
      std::memcpy(param.data(), padded.data(), static_cast<size_t>(param.numElements() * bytes));
    }
  }
  return true;
}

bool Trainer::step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error) {
  const plan::Config &c = plan_.config();
  const plan::Optimizer &o = c.optimizer();
  // `micro` counts the global batch's micro-batches over all data-parallel
  // ranks; this rank runs every dp-th of them (Megatron's order: micro-step
  // k covers global micro-batches k*dp .. k*dp+dp-1, one per rank). Dropout
  // keys follow the global index, so masks do not depend on the layout.
  int64_t micro = c.global_batch_size() / c.micro_batch_size();
  for (Stage &st : stages_)
    for (const Slice &sl : st.slices) {
      Buffer &acc = *buffer(st.prefix + "grad_acc:" + sl.param->name());
      std::fill_n(static_cast<unsigned char *>(acc.data()),
                  acc.numElements() * dtypeBytes(sl.param->dtype()), 0);
    }
  std::vector<MicroBatch> batches(static_cast<size_t>(micro / dp_));
  for (MicroBatch &b : batches)
    if (!nextOwnBatch(data, b, error))
      return false;
  double lossSum = 0;
  if (numStages_ == 1) {
    Stage &st = stages_.front();
    for (int64_t k = 0; k < micro / dp_; ++k) {
      if (!setBatch(batches[static_cast<size_t>(k)], iteration, k * dp_ + dpIndex_, error) ||
          !callTrainStep(st, error))
        return false;
      lossSum += scalar("loss");
    }
  } else if (!runPipeline(iteration, batches, lossSum, error)) {
    return false;
  }
  // The loss lives on the last stage; every rank reports it.
  if (!sumOver(ppGroup_, lossSum, "loss", error) || !sumOver(dpGroup_, lossSum, "loss", error) ||
      !reducePartialGradients(error) || !reduceTiedGradients(error) || !reduceGradients(error))
    return false;
  stats.loss = lossSum / static_cast<double>(micro);

  double sqNorm = 0;
  for (Stage &st : stages_) {
    if (!call(*st.gradSqNorm, error))
      return false;
    for (const Slice &sl : st.slices)
      if (sl.ownsNorm)
        sqNorm += scalar(st.prefix + "grad_sq:" + sl.param->name());
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
  float *hyper = buffer("hyper")->as<float>();
  double t = static_cast<double>(optimizerSteps_);
  const double values[8] = {stats.lr,
                            o.adam_beta1(),
                            o.adam_beta2(),
                            o.adam_eps(),
                            o.weight_decay(),
                            1.0 - std::pow(o.adam_beta1(), t),
                            1.0 - std::pow(o.adam_beta2(), t),
                            clip / static_cast<double>(micro) / unscale};
  for (int i = 0; i < 8; ++i)
    hyper[i] = static_cast<float>(values[i]);
  return optimize(error);
}

bool Trainer::evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error) {
  const plan::Config &c = plan_.config();
  MicroBatch batch;
  double sum = 0;
  for (int64_t i = 0; i < batches; ++i) {
    if (!data.next(c.micro_batch_size(), c.seq_length(), batch, error))
      return false;
    if (i % dp_ != dpIndex_)
      continue; // another data-parallel rank's batch
    if (!setBatch(batch, 0, i, error))
      return false;
    // Forward only, through the stages in order.
    for (Stage &st : stages_) {
      int64_t k = st.index;
      std::string what = "evaluation activation into stage ";
      if (k > 0) {
        Buffer &in = *buffer(st.prefix + "act_in");
        if (!comm_->recv(stageRank(k - 1), kEvalChannelBase + static_cast<int>(k - 1), in.data(),
                         in.numElements(), ElementType::F32, what + std::to_string(k), error))
          return false;
      }
      if (!call(st.eval ? *st.eval : *st.forward, error))
        return false;
      if (isLastStage(st)) {
        sum += scalar("loss");
      } else {
        Buffer &out = *buffer(st.prefix + "act_out");
        if (!comm_->send(stageRank(k + 1), kEvalChannelBase + static_cast<int>(k), out.data(),
                         out.numElements(), ElementType::F32, what + std::to_string(k + 1), error))
          return false;
      }
    }
  }
  if (!sumOver(ppGroup_, sum, "validation loss", error) ||
      !sumOver(dpGroup_, sum, "validation loss", error))
    return false;
  loss = batches ? sum / static_cast<double>(batches) : 0;
  return true;
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

bool Trainer::gather(const std::string &prefix, const plan::Parameter &param,
                     std::vector<double> &out, std::string &error) {
  int64_t total = 1;
  for (int64_t d : param.shape())
    total *= d;
  if (rank_ == 0)
    out.assign(static_cast<size_t>(total), 0.0);
  // Pieces come from data-parallel rank 0 of each pipeline stage and each
  // tensor-parallel rank that holds a different piece; a tied parameter's
  // first copy stands for all. The single-stage plan is one stage holding all.
  bool seenWhole = false;
  for (int64_t k = 0; k < numStages_; ++k) {
    int64_t begin = 0, end = 0;
    bool holds = plan_.stages_size() == 0;
    if (!holds)
      for (const plan::Stage &d : plan_.stages())
        if (d.index() == k)
          for (const plan::StageParameter &sp : d.parameters())
            if (sp.name() == param.name()) {
              holds = true;
              begin = sp.layer_begin();
              end = sp.layer_end();
            }
    if (!holds || (end == 0 && seenWhole))
      continue;
    seenWhole = seenWhole || end == 0;
    std::string name = (numStages_ > 1 ? "s" + std::to_string(k) + "/" : "") + prefix + param.name();
    int64_t pieces = param.has_tp_shard() ? tp_ : 1;
    for (int64_t t = 0; t < pieces; ++t) {
      TensorShard shard = shardOf(param, begin, end, t);
      int64_t count = shard.numLocalElements();
      int64_t holder = mesh_.rank({k % pp_, 0, t});
      std::vector<double> piece(static_cast<size_t>(count));
      if (holder == rank_) {
        Buffer *b = buffer(name);
        if (!b || b->numElements() != count) {
          error = "no " + std::to_string(count) + "-element buffer '" + name + "' to gather";
          return false;
        }
        for (int64_t i = 0; i < count; ++i)
          piece[static_cast<size_t>(i)] = readScalar(*b, dtypes_[name], i);
        if (rank_ != 0 &&
            !comm_->send(0, kGatherChannel, piece.data(), count, ElementType::F64, name, error))
          return false;
      } else if (rank_ == 0) {
        if (!comm_->recv(holder, kGatherChannel, piece.data(), count, ElementType::F64, name, error))
          return false;
      }
      if (rank_ == 0)
        for (int64_t i = 0; i < count; ++i)
          out[static_cast<size_t>(shard.globalIndex(i))] = piece[static_cast<size_t>(i)];
    }
  }
  return true;
}

bool Trainer::gatherTimeline(std::vector<TimelineEntry> &out, std::string &error) {
  constexpr int kTimelineChannel = (1 << 21) + 1;
  std::vector<int64_t> me = mesh_.coords(rank_);
  if (rank_ == 0)
    out = timeline_;
  if (me[1] != 0 || me[2] != 0)
    return true; // data- and tensor-parallel peers ran the same schedule
  auto pack = [](const std::vector<TimelineEntry> &entries) {
    std::vector<double> v;
    for (const TimelineEntry &e : entries)
      v.insert(v.end(), {static_cast<double>(e.stage), e.op.kind == PipelineOp::Forward ? 0.0 : 1.0,
                         static_cast<double>(e.op.microBatch), static_cast<double>(e.op.chunk),
                         e.start, e.end});
    return v;
  };
  if (rank_ != 0) {
    std::vector<double> v = pack(timeline_);
    int64_t n = static_cast<int64_t>(timeline_.size());
    return comm_->send(0, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error) &&
           comm_->send(0, kTimelineChannel, v.data(), static_cast<int64_t>(v.size()),
                       ElementType::F64, "timeline", error);
  }
  for (int64_t s = 1; s < pp_; ++s) {
    int64_t peer = mesh_.rank({s, 0, 0}), n = 0;
    if (!comm_->recv(peer, kTimelineChannel, &n, 1, ElementType::I64, "timeline size", error))
      return false;
    std::vector<double> v(static_cast<size_t>(6 * n));
    if (!comm_->recv(peer, kTimelineChannel, v.data(), 6 * n, ElementType::F64, "timeline", error))
      return false;
    for (int64_t i = 0; i < n; ++i) {
      const double *e = &v[static_cast<size_t>(6 * i)];
      out.push_back(TimelineEntry{static_cast<int64_t>(e[0]),
                                  PipelineOp{e[1] == 0 ? PipelineOp::Forward : PipelineOp::Backward,
                                             static_cast<int64_t>(e[2]), static_cast<int64_t>(e[3])},
                                  e[4], e[5]});
    }
  }
  return true;
}

} // namespace mt
