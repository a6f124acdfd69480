//===- Trainer.cpp - runs a plan's training step on the CPU ----------------===//
#include "mt/Runtime/Trainer.h"

#include "mt/Runtime/Initializer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace mt {

namespace {

int64_t bytesOf(plan::DType t) {
  switch (t) {
  case plan::F64:
  case plan::I64:
    return 8;
  case plan::BF16:
  case plan::F16:
    return 2;
  case plan::I1:
    return 1;
  default:
    return 4;
  }
}

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

MeshShape planMesh(const plan::Config &config) {
  const plan::Parallelism &p = config.parallel();
  auto atLeastOne = [](int64_t v) { return v > 0 ? v : 1; };
  return MeshShape({"pp", "dp", "tp"},
                   {atLeastOne(p.pipeline_parallel_size()), atLeastOne(p.data_parallel_size()),
                    atLeastOne(p.tensor_parallel_size())});
}

Buffer *Trainer::buffer(const std::string &name) {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? nullptr : it->second.get();
}

std::vector<double> Trainer::values(const std::string &name) {
  std::vector<double> out;
  if (Buffer *b = buffer(name))
    for (int64_t i = 0; i < b->numElements(); ++i)
      out.push_back(readScalar(*b, dtypes_[name], i));
  return out;
}

Buffer &Trainer::ensure(const plan::TensorSpec &spec) {
  auto &slot = buffers_[spec.name()];
  if (!slot) {
    slot = std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                    bytesOf(spec.dtype()));
    dtypes_[spec.name()] = spec.dtype();
  }
  return *slot;
}

const plan::Function *Trainer::function(const std::string &role) const {
  for (const plan::Function &f : plan_.functions())
    if (f.role() == role)
      return &f;
  return nullptr;
}

bool Trainer::load(const plan::Plan &plan, int64_t rank, Communicator *comm, std::string &error) {
  plan_ = plan;
  const plan::Config &c = plan_.config();
  mesh_ = planMesh(c);
  rank_ = rank;
  comm_ = comm;
  if (mesh_.sizes()[0] > 1 || mesh_.sizes()[2] > 1) {
    error = "this mt-run executes data-parallel plans only; the plan asks for tensor parallel "
            "size " + std::to_string(mesh_.sizes()[2]) + " and pipeline parallel size " +
            std::to_string(mesh_.sizes()[0]);
    return false;
  }
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
  dp_ = *mesh_.axisSize("dp");
  dpIndex_ = mesh_.coords(rank)[1];
  dpGroup_.ranks = mesh_.groupOf(rank, {"dp"});
  dpGroup_.name = "dp";
  for (const char *role : {"forward", "train_step", "accumulate", "grad_sq_norm", "optimizer"})
    if (!function(role)) {
      error = std::string("the plan has no '") + role + "' function";
      return false;
    }
  if (c.micro_batch_size() < 1 || c.seq_length() < 1 || c.global_batch_size() < 1 ||
      c.global_batch_size() % (c.micro_batch_size() * dp_) != 0 || c.train_iters() < 1) {
    error = "the plan's batch configuration is inconsistent";
    return false;
  }
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
  if (!loaded)
    return false;

  for (const plan::Parameter &p : plan_.parameters()) {
    plan::TensorSpec spec;
    spec.set_name(p.name());
    *spec.mutable_shape() = p.shape();
    spec.set_dtype(p.dtype());
    Buffer &b = ensure(spec);
    InitKind kind = p.init().kind() == plan::Init::NORMAL  ? InitKind::Normal
                    : p.init().kind() == plan::Init::ZEROS ? InitKind::Zeros
                                                           : InitKind::Ones;
    uint64_t key = parameterKey(c.seed(), p.name());
    if (p.dtype() == plan::F64)
      initializeRange(kind, p.init().std(), key, 0, b.numElements(), b.as<double>());
    else
      initializeRange(kind, p.init().std(), key, 0, b.numElements(), b.as<float>());
    // Gradients accumulate at full size; the optimizer state takes the
    // shapes the optimizer function declares (shards with the distributed
    // optimizer), zero-initialized below.
    spec.set_name("grad_acc:" + p.name());
    ensure(spec);
  }
  for (const plan::Function &f : plan_.functions()) {
    for (const auto &s : f.inputs())
      ensure(s);
    for (const auto &s : f.outputs())
      ensure(s);
  }
  const plan::Optimizer &o = c.optimizer();
  schedule_ = LrSchedule{o.lr(), o.min_lr(), o.lr_warmup_iters(), o.lr_decay_iters(),
                         o.lr_decay_style()};
  return true;
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
  if (!module_.call(fn.name(), args, error))
    return false;
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

bool Trainer::step(int64_t iteration, BatchSource &data, StepStats &stats, std::string &error) {
  const plan::Config &c = plan_.config();
  const plan::Optimizer &o = c.optimizer();
  // `micro` counts the global batch's micro-batches, over all
  // data-parallel ranks; this rank runs every dp-th of them.
  int64_t micro = c.global_batch_size() / c.micro_batch_size();
  for (const plan::Parameter &p : plan_.parameters()) {
    Buffer &acc = *buffer("grad_acc:" + p.name());
    std::fill_n(static_cast<unsigned char *>(acc.data()),
                acc.numElements() * bytesOf(p.dtype()), 0);
  }
  MicroBatch batch;
  double lossSum = 0;
  for (int64_t k = 0; k < micro / dp_; ++k) {
    // Megatron's order: micro-step k covers global micro-batches
    // k*dp .. k*dp+dp-1, one per data-parallel rank; dropout keys follow the
    // global index, so masks do not depend on the layout.
    if (!nextOwnBatch(data, batch, error) || !setBatch(batch, iteration, k * dp_ + dpIndex_, error) ||
        !call(*function("train_step"), error) || !call(*function("accumulate"), error))
      return false;
    lossSum += scalar("loss");
  }
  if (!sumOverDataParallel(lossSum, "loss", error) || !reduceGradients(error))
    return false;
  stats.loss = lossSum / static_cast<double>(micro);
  if (!call(*function("grad_sq_norm"), error))
    return false;
  double sqNorm = scalar("grad_sq_norm");
  // With the distributed optimizer each rank holds the squares of its shards.
  if (c.parallel().distributed_optimizer() && !sumOverDataParallel(sqNorm, "grad_sq_norm", error))
    return false;
  stats.gradNorm = std::sqrt(sqNorm) / static_cast<double>(micro);
  stats.lr = schedule_.at(iteration);
  stats.skipped = !std::isfinite(stats.loss) || !std::isfinite(stats.gradNorm);
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
                            clip / static_cast<double>(micro)};
  for (int i = 0; i < 8; ++i)
    hyper[i] = static_cast<float>(values[i]);
  if (!c.parallel().distributed_optimizer())
    return call(*function("optimizer"), error);
  copyParamShards();
  return call(*function("optimizer"), error) && gatherParamShards(error);
}

bool Trainer::nextOwnBatch(BatchSource &data, MicroBatch &batch, std::string &error) {
  const plan::Config &c = plan_.config();
  MicroBatch other;
  for (int64_t j = 0; j < dp_; ++j)
    if (!data.next(c.micro_batch_size(), c.seq_length(), j == dpIndex_ ? batch : other, error))
      return false;
  return true;
}

bool Trainer::sumOverDataParallel(double &value, const std::string &what, std::string &error) {
  if (dp_ == 1)
    return true;
  return comm_->allReduce(dpGroup_, &value, 1, ElementType::F64, ReduceOp::Sum, what, error);
}

int64_t Trainer::shardElements(const plan::Parameter &p) const {
  int64_t n = 1;
  for (int64_t d : p.shape())
    n *= d;
  return (n + dp_ - 1) / dp_;
}

bool Trainer::reduceGradients(std::string &error) {
  if (dp_ == 1 && !plan_.config().parallel().distributed_optimizer())
    return true;
  for (const plan::Parameter &p : plan_.parameters()) {
    Buffer &acc = *buffer("grad_acc:" + p.name());
    ElementType type = commType(p.dtype());
    std::string what = "grad_acc:" + p.name();
    if (!plan_.config().parallel().distributed_optimizer()) {
      if (!comm_->allReduce(dpGroup_, acc.data(), acc.numElements(), type, ReduceOp::Sum, what,
                            error))
        return false;
      continue;
    }
    Buffer *shard = buffer("grad_shard:" + p.name());
    int64_t s = shardElements(p), bytes = bytesOf(p.dtype());
    if (!shard || shard->numElements() != s) {
      error = "the plan's optimizer does not take " + std::to_string(s) + "-element shards of '" +
              p.name() + "'";
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

void Trainer::copyParamShards() {
  for (const plan::Parameter &p : plan_.parameters()) {
    Buffer &param = *buffer(p.name());
    Buffer &shard = *buffer("param_shard:" + p.name());
    int64_t s = shardElements(p), bytes = bytesOf(p.dtype());
    int64_t begin = std::min(dpIndex_ * s, param.numElements());
    int64_t end = std::min(begin + s, param.numElements());
    auto *dst = static_cast<unsigned char *>(shard.data());
    std::memset(dst, 0, static_cast<size_t>(s * bytes));
    std::memcpy(dst, static_cast<unsigned char *>(param.data()) + begin * bytes,
                static_cast<size_t>((end - begin) * bytes));
  }
}

bool Trainer::gatherParamShards(std::string &error) {
  for (const plan::Parameter &p : plan_.parameters()) {
    Buffer &param = *buffer(p.name());
    Buffer &shard = *buffer("param_shard:" + p.name());
    int64_t s = shardElements(p), bytes = bytesOf(p.dtype());
    std::vector<unsigned char> padded(static_cast<size_t>(s * dp_ * bytes));
    if (dp_ == 1)
      std::memcpy(padded.data(), shard.data(), padded.size());
    else if (!comm_->allGather(dpGroup_, shard.data(), padded.data(), s, commType(p.dtype()),
                               "param_shard:" + p.name(), error))
      return false;
    std::memcpy(param.data(), padded.data(), static_cast<size_t>(param.numElements() * bytes));
  }
  return true;
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
    if (!setBatch(batch, 0, i, error) ||
        !call(function("eval") ? *function("eval") : *function("forward"), error))
      return false;
    sum += scalar("loss");
  }
  if (!sumOverDataParallel(sum, "validation loss", error))
    return false;
  loss = batches ? sum / static_cast<double>(batches) : 0;
  return true;
}

} // namespace mt
