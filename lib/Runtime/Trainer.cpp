//===- Trainer.cpp - runs a plan's training step on the CPU ----------------===//
#include "mt/Runtime/Trainer.h"

#include "mt/Runtime/Initializer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

} // namespace

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

bool Trainer::load(const plan::Plan &plan, std::string &error) {
  plan_ = plan;
  const plan::Config &c = plan_.config();
  for (const char *role : {"forward", "train_step", "accumulate", "grad_sq_norm", "optimizer"})
    if (!function(role)) {
      error = std::string("the plan has no '") + role + "' function";
      return false;
    }
  if (c.micro_batch_size() < 1 || c.seq_length() < 1 || c.global_batch_size() < 1 ||
      c.global_batch_size() % c.micro_batch_size() != 0 || c.train_iters() < 1) {
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
    for (const char *state : {"exp_avg:", "exp_avg_sq:", "grad_acc:"}) {
      spec.set_name(state + p.name());
      ensure(spec); // zero-initialized
    }
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
  int64_t micro = c.global_batch_size() / c.micro_batch_size();
  for (const plan::Parameter &p : plan_.parameters()) {
    Buffer &acc = *buffer("grad_acc:" + p.name());
    std::fill_n(static_cast<unsigned char *>(acc.data()),
                acc.numElements() * bytesOf(p.dtype()), 0);
  }
  MicroBatch batch;
  double lossSum = 0;
  for (int64_t m = 0; m < micro; ++m) {
    if (!data.next(c.micro_batch_size(), c.seq_length(), batch, error) ||
        !setBatch(batch, iteration, m, error) || !call(*function("train_step"), error) ||
        !call(*function("accumulate"), error))
      return false;
    lossSum += scalar("loss");
  }
  stats.loss = lossSum / static_cast<double>(micro);
  if (!call(*function("grad_sq_norm"), error))
    return false;
  stats.gradNorm = std::sqrt(scalar("grad_sq_norm")) / static_cast<double>(micro);
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
  return call(*function("optimizer"), error);
}

bool Trainer::evaluate(BatchSource &data, int64_t batches, double &loss, std::string &error) {
  const plan::Config &c = plan_.config();
  MicroBatch batch;
  double sum = 0;
  for (int64_t i = 0; i < batches; ++i) {
    if (!data.next(c.micro_batch_size(), c.seq_length(), batch, error) ||
        !setBatch(batch, 0, i, error) ||
        !call(function("eval") ? *function("eval") : *function("forward"), error))
      return false;
    sum += scalar("loss");
  }
  loss = batches ? sum / static_cast<double>(batches) : 0;
  return true;
}

} // namespace mt
