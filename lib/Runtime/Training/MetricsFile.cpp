//===- MetricsFile.cpp - mt-run --metrics-file: one JSON object a line -----===//
#include "mt/Runtime/Training/MetricsFile.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/resource.h>

namespace mt {
namespace {

/// JSON has no NaN or infinity: those are null.
llvm::json::Value number(double v) {
  return std::isfinite(v) ? llvm::json::Value(v) : llvm::json::Value(nullptr);
}

/// Megabytes (10^6 bytes), as the memory report prints them.
double megabytes(double bytes) { return bytes / 1e6; }

/// The memory a step used: the process's peak resident set (every rank
/// thread of this process) and the reporting rank's arena, saved
/// activations and (a GPU plan) buffers in GPU memory.
llvm::json::Object memoryOf(const StepStats &s) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return llvm::json::Object{
      {"peak_rss_mb", megabytes(static_cast<double>(usage.ru_maxrss) * 1024)},
      {"arena_mb", megabytes(static_cast<double>(s.arenaBytes))},
      {"saved_activations_mb", megabytes(static_cast<double>(s.savedActivationBytes))},
      {"gpu_buffers_mb", megabytes(static_cast<double>(s.gpuBufferBytes))}};
}

llvm::json::Object metricsOf(const std::vector<std::pair<std::string, double>> &metrics) {
  llvm::json::Object out;
  for (const auto &[name, value] : metrics)
    out[name] = number(value);
  return out;
}

} // namespace

MetricsFile::~MetricsFile() {
  if (file_)
    std::fclose(file_);
}

bool MetricsFile::open(const std::string &path, std::string &error) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    error = "cannot write the metrics file '" + path + "': " + std::strerror(errno);
  return file_ != nullptr;
}

void MetricsFile::train(int64_t step, const StepStats &s, double tokensPerSecond, double elapsed) {
  llvm::json::Object line{{"kind", "train"},
                          {"step", step},
                          {"loss", number(s.loss)},
                          {"lr", number(s.lr)},
                          {"grad_norm", number(s.gradNorm)},
                          {"tokens_per_s", number(tokensPerSecond)},
                          {"elapsed_s", number(elapsed)},
                          {"skipped", s.skipped},
                          {"memory", memoryOf(s)},
                          {"metrics", metricsOf(s.metrics)}};
  if (s.lossScale > 0)
    line["loss_scale"] = number(s.lossScale);
  if (s.exposedCommSeconds >= 0) {
    line["exposed_comm_ms"] = number(s.exposedCommSeconds * 1e3);
    line["in_step_comm_ms"] = number(s.inStepCommSeconds * 1e3);
  }
  write(std::move(line));
}

void MetricsFile::validation(int64_t step, double loss, double perplexity,
                             const std::vector<std::pair<std::string, double>> &metrics,
                             const std::string &dataset, bool test) {
  llvm::json::Object line{{"kind", test ? "test" : "valid"},
                          {"step", step},
                          {"loss", number(loss)},
                          {"perplexity", number(perplexity)},
                          {"metrics", metricsOf(metrics)}};
  if (!dataset.empty())
    line["dataset"] = dataset;
  write(std::move(line));
}

void MetricsFile::write(llvm::json::Object line) {
  if (!file_)
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(line)) << "\n";
  os.flush();
  std::fputs(text.c_str(), file_);
  std::fflush(file_);
}

} // namespace mt
