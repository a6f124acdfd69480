//===- MetricsFile.h - mt-run --metrics-file: one JSON object a line -*- C++ -*-===//
//
// What a training run measured, in one stable format for tools (bench/,
// users' dashboards) instead of patterns over the log lines:
//   {"kind": "train", "step": 3, "loss": 10.8, "lr": 6e-4, "grad_norm": 1.2,
//    "tokens_per_s": 9001, "elapsed_s": 1.5, "skipped": false,
//    "loss_scale": 65536, "exposed_comm_ms": 0.4, "in_step_comm_ms": 2.1,
//    "memory": {"peak_rss_mb": 812.5, "arena_mb": 96.5, "saved_activations_mb": 0,
//               "gpu_buffers_mb": 0},
//    "metrics": {"lm loss": 7.1}}
//   {"kind": "valid", "step": 50, "loss": 5.7, "perplexity": 298.9, "metrics": {}}
// memory: the process's peak resident set, this rank's arena and saved
// activations, and a GPU plan's buffers in GPU memory on this rank, the
// most at once (0 on the CPU; MB = 10^6 bytes). loss_scale appears with loss scaling, the
// comm fields on several ranks;
// a value that is not finite is written as null. Each line is flushed.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_METRICSFILE_H
#define MT_RUNTIME_TRAINING_METRICSFILE_H

#include "mt/Runtime/Training/StepStats.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace llvm::json {
class Object;
} // namespace llvm::json

namespace mt {

class MetricsFile {
public:
  MetricsFile() = default;
  MetricsFile(const MetricsFile &) = delete;
  MetricsFile &operator=(const MetricsFile &) = delete;
  ~MetricsFile();

  /// Creates (or truncates) `path`; false with `error`.
  bool open(const std::string &path, std::string &error);
  bool isOpen() const { return file_ != nullptr; }
  void train(int64_t step, const StepStats &stats, double tokensPerSecond, double elapsed);
  /// kind "valid" (or "test"), with "dataset" when it is one of a blend's.
  void validation(int64_t step, double loss, double perplexity,
                  const std::vector<std::pair<std::string, double>> &metrics,
                  const std::string &dataset = {}, bool test = false);

private:
  void write(llvm::json::Object line);
  std::FILE *file_ = nullptr;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_METRICSFILE_H
