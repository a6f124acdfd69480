//===- TrainingLog.h - what a training run reports -------------*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINING_TRAININGLOG_H
#define MT_RUNTIME_TRAINING_TRAININGLOG_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Training/MetricsFile.h"
#include "mt/Runtime/Training/StepStats.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace mt {

/// Log lines on stdout (a progress bar with ETA when it is a terminal), and
/// with a log directory, train.log and a loss curve loss.svg (LossCurve.h).
class TrainingLog {
public:
  /// `print`: false on every rank but the one that reports.
  TrainingLog(std::string dir, bool terminal, int64_t totalIters, bool print = true);
  ~TrainingLog();
  bool open(std::string &error);
  /// Also writes every step and validation to `path` as JSON lines
  /// (MetricsFile); false with `error` when it cannot be created.
  bool openMetrics(const std::string &path, std::string &error) {
    return metrics_.open(path, error);
  }
  /// `device`: the GPU the plan runs on, or empty for the CPU.
  void header(const plan::Config &config, int64_t trainSamples, int64_t validSamples,
              const std::string &device = "");
  void step(int64_t iteration, const StepStats &stats, double tokensPerSecond, double elapsed,
            int64_t skipped, bool print);
  /// A validation (or `test`) loss: of the split's blend, or with
  /// `dataset`, of one of its datasets.
  void validation(int64_t iteration, double loss,
                  const std::vector<std::pair<std::string, double>> &metrics = {},
                  const std::string &dataset = {}, bool test = false);
  bool finish(std::string &error);
  /// The run stops after iteration `it` (SIGTERM/SIGINT) instead of its last.
  void stopAfter(int64_t it) { stoppedAfter_ = it; }
  /// The heading of loss.svg: the model and how it is laid out (LossCurve).
  void setTitle(std::string title) { title_ = std::move(title); }

private:
  void emit(const std::string &line);

  std::string dir_, title_;
  bool terminal_, print_;
  int64_t total_;
  int64_t stoppedAfter_ = 0;
  std::FILE *file_ = nullptr;
  std::vector<std::pair<int64_t, double>> train_, valid_;
  double elapsed_ = 0;
  MetricsFile metrics_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TRAININGLOG_H
