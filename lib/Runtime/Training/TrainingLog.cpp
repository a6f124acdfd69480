//===- TrainingLog.cpp - what a training run reports -----------------------===//
#include "mt/Runtime/Training/TrainingLog.h"
#include "mt/Runtime/Training/LossCurve.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/stat.h>

namespace mt {

TrainingLog::TrainingLog(std::string dir, bool terminal, int64_t totalIters, bool print)
    : dir_(std::move(dir)), terminal_(terminal), print_(print), total_(totalIters) {}

TrainingLog::~TrainingLog() {
  if (file_)
    std::fclose(file_);
}

bool TrainingLog::open(std::string &error) {
  if (dir_.empty())
    return true;
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    error = "cannot create log directory '" + dir_ + "': " + std::strerror(errno);
    return false;
  }
  file_ = std::fopen((dir_ + "/train.log").c_str(), "w");
  if (!file_) {
    error = "cannot write '" + dir_ + "/train.log': " + std::strerror(errno);
    return false;
  }
  return true;
}

void TrainingLog::emit(const std::string &line) {
  if (!print_)
    return;
  if (terminal_)
    std::fputs("\r\033[K", stdout);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
  if (file_) {
    std::fputs((line + "\n").c_str(), file_);
    std::fflush(file_);
  }
}

void TrainingLog::header(const plan::Config &c, int64_t trainSamples, int64_t validSamples,
                         const std::string &device) {
  char line[512];
  std::string decoder =
      c.decoder_seq_length() > 0 ? " (decoder " + std::to_string(c.decoder_seq_length()) + ")" : "";
  std::snprintf(line, sizeof line,
                "model %s: micro-batch %lld, global batch %lld, seq %lld%s, %lld steps; data: %lld "
                "training and %lld validation samples",
                c.model().c_str(), static_cast<long long>(c.micro_batch_size()),
                static_cast<long long>(c.global_batch_size()),
                static_cast<long long>(c.seq_length()), decoder.c_str(),
                static_cast<long long>(total_), static_cast<long long>(trainSamples),
                static_cast<long long>(validSamples));
  emit(line);
  if (!device.empty())
    emit("device: " + device);
  const plan::Parallelism &p = c.parallel();
  int64_t tp = std::max<int64_t>(p.tensor_parallel_size(), 1),
          pp = std::max<int64_t>(p.pipeline_parallel_size(), 1),
          dp = std::max<int64_t>(p.data_parallel_size(), 1);
  if (tp * pp * dp > 1) {
    std::snprintf(line, sizeof line, "ranks %lld: tp %lld%s, pp %lld, dp %lld%s",
                  static_cast<long long>(tp * pp * dp), static_cast<long long>(tp),
                  p.sequence_parallel() ? " (sequence parallel)" : "", static_cast<long long>(pp),
                  static_cast<long long>(dp),
                  p.distributed_optimizer() ? " (distributed optimizer)" : "");
    emit(line);
  }
}

void TrainingLog::step(int64_t it, const StepStats &s, double tokensPerSecond, double elapsed,
                       int64_t skipped, bool print) {
  elapsed_ = elapsed;
  if (!s.skipped)
    train_.push_back({it, s.loss});
  metrics_.train(it, s, tokensPerSecond, elapsed);
  if (print) {
    char line[512];
    std::string scale, note;
    if (s.lossScale > 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " | loss scale %.6g", s.lossScale);
      scale = buf;
    }
    if (s.overflow)
      note = " | SKIPPED (gradient overflow at this loss scale; " + std::to_string(skipped) +
             " skipped so far)";
    else if (s.skipped)
      note = " | SKIPPED (non-finite; " + std::to_string(skipped) + " so far)";
    // Megatron's BERT prints its parts: "lm loss: X | sop loss: Y".
    std::string metrics;
    for (const auto &[name, value] : s.metrics) {
      char buf[128];
      std::snprintf(buf, sizeof buf, " | %s %.6f", name.c_str(), value);
      metrics += buf;
    }
    // Communication after the backward that it did not hide.
    std::string comm;
    if (s.exposedCommSeconds >= 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " | exposed comm %.1f ms%s", s.exposedCommSeconds * 1e3,
                    s.overlapped ? " (overlapped)" : "");
      comm = buf;
      // ... and inside the step: tensor parallelism's collectives.
      if (s.inStepCommSeconds > 0) {
        std::snprintf(buf, sizeof buf, " | in-step comm %.1f ms", s.inStepCommSeconds * 1e3);
        comm += buf;
      }
    }
    std::snprintf(
        line, sizeof line,
        "iteration %6lld/%lld | loss %.6f%s | lr %.4e | grad norm %.4f%s | %.0f tokens/s | "
        "elapsed %.1f s%s%s",
        static_cast<long long>(it), static_cast<long long>(total_), s.loss, metrics.c_str(), s.lr,
        s.gradNorm, scale.c_str(), tokensPerSecond, elapsed, comm.c_str(), note.c_str());
    emit(line);
  }
  if (print_ && terminal_ && it < total_) {
    double eta = elapsed / static_cast<double>(it) * static_cast<double>(total_ - it);
    int width = 30, filled = static_cast<int>(width * it / std::max<int64_t>(total_, 1));
    std::printf("\r[%s%s] %lld/%lld ETA %.0f s", std::string(filled, '#').c_str(),
                std::string(width - filled, '.').c_str(), static_cast<long long>(it),
                static_cast<long long>(total_), eta);
    std::fflush(stdout);
  }
}

void TrainingLog::validation(int64_t it, double loss,
                             const std::vector<std::pair<std::string, double>> &metrics,
                             const std::string &dataset, bool test) {
  if (dataset.empty() && !test)
    valid_.push_back({it, loss}); // the loss curve's
  // The perplexity is the language model's: of "lm loss" when the loss has
  // other parts (BERT's sentence order), as Megatron's "lm loss PPL".
  double lm = loss;
  std::string parts;
  for (const auto &[name, value] : metrics) {
    char buf[128];
    std::snprintf(buf, sizeof buf, " | %s %.6f", name.c_str(), value);
    parts += buf;
    if (name == "lm loss")
      lm = value;
  }
  std::string on = dataset.empty() ? "" : " on " + dataset;
  char line[1024];
  std::snprintf(line, sizeof line, "%s at iteration %lld%s | loss %.6f%s | perplexity %.3f",
                test ? "test" : "validation", static_cast<long long>(it), on.c_str(), loss,
                parts.c_str(), std::exp(lm));
  emit(line);
  metrics_.validation(it, loss, std::exp(lm), metrics, dataset, test);
}

bool TrainingLog::finish(std::string &error) {
  char line[128];
  if (stoppedAfter_)
    std::snprintf(line, sizeof line, "stopped after iteration %lld of %lld in %.1f s",
                  static_cast<long long>(stoppedAfter_), static_cast<long long>(total_), elapsed_);
  else
    std::snprintf(line, sizeof line, "done: %lld steps in %.1f s", static_cast<long long>(total_),
                  elapsed_);
  emit(line);
  if (dir_.empty())
    return true;
  std::string path = dir_ + "/loss.svg";
  std::FILE *svg = std::fopen(path.c_str(), "w");
  if (!svg) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string text = lossCurveSvg({title_, train_, valid_});
  std::fwrite(text.data(), 1, text.size(), svg);
  std::fclose(svg);
  return true;
}

} // namespace mt
