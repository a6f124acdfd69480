//===- SplitSource.h - one split's samples, of a dataset or a blend -*- C++ -*-===//
//
// A DatasetSplit is one dataset's samples of one split (train, valid or
// test) in the family the model takes: GPT's next-token windows, BERT's
// masked-LM and sentence-order pairs, T5's span corruption. A SplitSource
// serves a split's samples in order, cycling when it runs out: one
// dataset's, or a blend's by its blending index (mt/Data/DataBlend.h), where
// sample i is dataset d's sample k and each dataset's samples come in the
// order they would alone.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_SPLITSOURCE_H
#define MT_RUNTIME_TRAINING_SPLITSOURCE_H

#include "mt/Data/BertDataset.h"
#include "mt/Data/DataBlend.h"
#include "mt/Data/GptDataset.h"
#include "mt/Data/T5Dataset.h"
#include "mt/Runtime/Training/Batch.h"

#include <string>
#include <vector>

namespace mt {

class DatasetSplit {
public:
  enum class Family { Gpt, Bert, T5 };
  int64_t numSamples() const;
  Family family() const { return family_; }
  /// Sizes `batch` for `rows` samples of `seq` tokens, before fill().
  void prepare(int64_t rows, int64_t seq, MicroBatch &batch) const;
  /// Writes sample `index` (< numSamples()) into row `row` of `batch`.
  void fill(int64_t index, int64_t row, int64_t seq, MicroBatch &batch) const;

private:
  friend class TrainingData;
  Family family_ = Family::Gpt;
  GptDataset gpt_;
  BertDataset bert_;
  T5Dataset t5_;
  int64_t decoderLength_ = 0; // T5
};

class SplitSource : public BatchSource {
public:
  int64_t numSamples() const { return size_; }
  /// Samples served so far (the data order's position), and moving it.
  int64_t position() const { return cursor_; }
  void seek(int64_t samples) { cursor_ = samples; }
  bool next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) override;
  /// What it serves: "web" (a dataset), or the split's name for a blend.
  const std::string &name() const { return name_; }

private:
  friend class TrainingData;
  std::vector<const DatasetSplit *> parts_;
  BlendingIndex blend_; // empty with one part
  int64_t size_ = 0, cursor_ = 0, seq_ = 0;
  std::string name_, split_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_SPLITSOURCE_H
