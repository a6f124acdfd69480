//===- RunRecorder.cpp - everything needed to replay a run elsewhere -------===//
#include "mt/Runtime/Training/RunRecorder.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/Training/Trainer.h"

#include <cerrno>
#include <cstring>
#include <sstream>
#include <sys/stat.h>

namespace mt {

namespace {

bool makeDir(const std::string &path, std::string &error) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    error = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

template <typename T>
bool writeRaw(const std::string &path, const T *data, size_t count, std::string &error) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, sizeof(T), count, f) != count) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    if (f)
      std::fclose(f);
    return false;
  }
  std::fclose(f);
  return true;
}

} // namespace

/// Forwards to the real source and saves each micro-batch as it goes.
class RunRecorder::Recording : public BatchSource {
public:
  Recording(BatchSource &inner, std::string dir) : inner_(inner), dir_(std::move(dir)) {}
  bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) override {
    if (!inner_.next(rows, seq, batch, error))
      return false;
    std::string base = dir_ + "/batches/" + std::to_string(count_++);
    return writeRaw(base + ".tokens.i32", batch.tokens.data(), batch.tokens.size(), error) &&
           writeRaw(base + ".labels.i32", batch.labels.data(), batch.labels.size(), error) &&
           writeRaw(base + ".mask.f32", batch.lossMask.data(), batch.lossMask.size(), error) &&
           writeInputs(base, batch, error);
  }

private:
  /// The model's further inputs: <base>.<name>.i32 each.
  static bool writeInputs(const std::string &base, const MicroBatch &batch, std::string &error) {
    for (const auto &[name, values] : batch.inputs)
      if (!writeRaw(base + "." + name + ".i32", values.data(), values.size(), error))
        return false;
    return true;
  }

  BatchSource &inner_;
  std::string dir_;
  int64_t count_ = 0;
};

RunRecorder::~RunRecorder() {
  if (losses_)
    std::fclose(losses_);
  if (cpu_)
    std::fclose(cpu_);
}

BatchSource &RunRecorder::wrap(BatchSource &source) {
  if (!lead_)
    return source;
  recording_ = std::make_unique<Recording>(source, dir_);
  return *recording_;
}

bool RunRecorder::writeParams(Trainer &trainer, const std::string &sub, const std::string &prefix,
                              std::string &error) {
  if (lead_ && !makeDir(dir_ + "/" + sub, error))
    return false;
  for (const plan::Parameter &p : trainer.plan().parameters()) {
    std::vector<double> values;
    if (!trainer.gather(prefix, p, values, error))
      return false;
    if (!lead_)
      continue;
    std::vector<float> f(values.begin(), values.end());
    if (!writeRaw(dir_ + "/" + sub + "/" + p.name() + ".f32", f.data(), f.size(), error))
      return false;
  }
  return true;
}

bool RunRecorder::begin(Trainer &trainer, std::string &error) {
  if (!lead_)
    return writeParams(trainer, "init", "", error);
  if (!makeDir(dir_, error) || !makeDir(dir_ + "/batches", error))
    return false;
  const plan::Config &c = trainer.config();
  const plan::Optimizer &o = c.optimizer();
  std::ostringstream json;
  json.precision(17);
  json << "{\n  \"micro_batch_size\": " << c.micro_batch_size()
       << ",\n  \"global_batch_size\": " << c.global_batch_size()
       << ",\n  \"seq_length\": " << c.seq_length()
       << ",\n  \"decoder_seq_length\": " << c.decoder_seq_length()
       << ",\n  \"vocab_size\": " << c.vocab_size() << ",\n  \"lr\": " << o.lr()
       << ",\n  \"min_lr\": " << o.min_lr() << ",\n  \"lr_warmup_iters\": " << o.lr_warmup_iters()
       << ",\n  \"lr_decay_iters\": " << o.lr_decay_iters() << ",\n  \"lr_decay_style\": \""
       << nameOf(o.lr_decay_style()) << "\",\n  \"clip_grad\": " << o.clip_grad()
       << ",\n  \"weight_decay\": " << o.weight_decay() << ",\n  \"adam_beta1\": " << o.adam_beta1()
       << ",\n  \"adam_beta2\": " << o.adam_beta2() << ",\n  \"adam_eps\": " << o.adam_eps()
       << ",\n  \"parameters\": [";
  bool first = true;
  for (const plan::Parameter &p : trainer.plan().parameters()) {
    json << (first ? "\n" : ",\n") << "    {\"name\": \"" << p.name() << "\", \"shape\": [";
    for (int i = 0; i < p.shape_size(); ++i)
      json << (i ? ", " : "") << p.shape(i);
    json << "], \"weight_decay\": " << (p.weight_decay() ? "true" : "false") << "}";
    first = false;
  }
  json << "\n  ]\n}\n";
  std::string text = json.str();
  if (!writeRaw(dir_ + "/manifest.json", text.data(), text.size(), error) ||
      !writeParams(trainer, "init", "", error))
    return false;
  losses_ = std::fopen((dir_ + "/losses.txt").c_str(), "w");
  // Each step's CPU time over all the process's threads ("iteration seconds").
  cpu_ = std::fopen((dir_ + "/cpu_seconds.txt").c_str(), "w");
  if (!losses_ || !cpu_) {
    error = "cannot write '" + dir_ + (losses_ ? "/cpu_seconds.txt'" : "/losses.txt'");
    return false;
  }
  return true;
}

bool RunRecorder::step(Trainer &trainer, int64_t iteration, const StepStats &stats,
                       std::string &error) {
  if (lead_) {
    // Every digit (17 significant), so resumed runs can be compared exactly;
    // then the step and the loss scale (fp16; 0 without).
    std::fprintf(losses_, "%.17g %.17g %.17g %d %lld %.17g\n", stats.loss, stats.gradNorm, stats.lr,
                 stats.skipped ? 1 : 0, static_cast<long long>(iteration), stats.lossScale);
    std::fflush(losses_);
    std::fprintf(cpu_, "%lld %.6f\n", static_cast<long long>(iteration), stats.cpuSeconds);
    std::fflush(cpu_);
  }
  return iteration != 1 ||
         writeParams(trainer, "grads_step1",
                     std::string(buffers::prefixOf(buffers::Role::GradAccumulator)), error);
}

bool RunRecorder::end(Trainer &trainer, std::string &error) {
  return writeParams(trainer, "final", "", error);
}

} // namespace mt
