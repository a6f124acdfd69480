//===- RunRecorder.h - everything needed to replay a run elsewhere -*- C++ -*-===//
//
// With `mt-run --record DIR`, a run writes what an independent implementation
// (test/reference/torch_gpt.py, in PyTorch) needs to reproduce it: the
// configuration, the initial parameters, every micro-batch, the first step's
// accumulated gradients, every step's loss (losses.txt: loss, gradient norm,
// learning rate, skipped, step, loss scale) and the final parameters. Tensors
// are raw little-endian float32 / int32 files.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_RUNRECORDER_H
#define MT_RUNTIME_TRAINING_RUNRECORDER_H

#include "mt/Runtime/Training/Batch.h"
#include "mt/Runtime/Training/StepStats.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace mt {

class Trainer;

class RunRecorder {
public:
  /// Every rank of a run makes one (parameters are gathered from all
  /// ranks); only the `lead` rank writes.
  RunRecorder(std::string dir, bool lead) : dir_(std::move(dir)), lead_(lead) {}
  ~RunRecorder();

  bool enabled() const { return !dir_.empty(); }
  /// Writes manifest.json and the initial parameters.
  bool begin(Trainer &trainer, std::string &error);
  /// A batch source that records every micro-batch it hands out.
  BatchSource &wrap(BatchSource &source);
  /// After step `iteration`: its loss, and for the first step the gradients.
  bool step(Trainer &trainer, int64_t iteration, const StepStats &stats, std::string &error);
  /// The final parameters.
  bool end(Trainer &trainer, std::string &error);

private:
  class Recording;
  bool writeParams(Trainer &trainer, const std::string &sub, const std::string &prefix,
                   std::string &error);

  std::string dir_;
  bool lead_;
  std::FILE *losses_ = nullptr;
  std::FILE *cpu_ = nullptr;
  std::unique_ptr<BatchSource> recording_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_RUNRECORDER_H
