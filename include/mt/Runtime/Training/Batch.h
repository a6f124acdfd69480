//===- Batch.h - micro-batches and where they come from ---------*- C++ -*-===//
//
// What the trainer consumes and the data, recorder and test fixtures
// produce; below the Trainer, so they need not include it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_BATCH_H
#define MT_RUNTIME_TRAINING_BATCH_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mt {

/// One micro-batch: [micro_batch_size, seq_length] tokens, next-token labels
/// and a loss mask.
struct MicroBatch {
  std::vector<int32_t> tokens, labels;
  std::vector<float> lossMask;
  /// Further inputs a model declares (mt.batch = "<name>"), by name: BERT's
  /// token_types, padding_mask, sop_labels, sop_mask. Row-major
  /// [micro_batch_size, seq_length] integers, converted to the plan buffer's
  /// element type (i32/i64 ids, i1 flags, f32/f64 weights).
  std::map<std::string, std::vector<int32_t>> inputs;
};

/// Where micro-batches come from (a dataset split, a test fixture).
class BatchSource {
public:
  virtual ~BatchSource() = default;
  /// Fills `batch` for `rows` sequences of `seq` tokens; false with `error`.
  virtual bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) = 0;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_BATCH_H
