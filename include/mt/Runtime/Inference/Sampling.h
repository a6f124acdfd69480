//===- Sampling.h - choosing the next token from logits --------*- C++ -*-===//
//
// The order Hugging Face's generate() applies them in: repetition penalty
// (CTRL's: a seen token's logit divided by the penalty when positive,
// multiplied when negative), temperature, top-k, then top-p (nucleus: the
// smallest set of the most likely tokens whose probability reaches p,
// never empty). Draws are a pure function of (seed, step), so a seeded
// generation is reproducible.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_INFERENCE_SAMPLING_H
#define MT_RUNTIME_INFERENCE_SAMPLING_H

#include <cstdint>
#include <vector>

namespace mt {

struct SamplingOptions {
  bool greedy = true;
  double temperature = 1.0; // > 0
  int64_t topK = 0;         // 0: all
  double topP = 1.0;        // (0, 1]
  double repetitionPenalty = 1.0;
  uint64_t seed = 0;
};

/// The tokens a draw may return and their probabilities (summing to 1),
/// most likely first, ties by lower id.
struct Candidates {
  std::vector<int32_t> ids;
  std::vector<double> probs;
};

/// Applies the repetition penalty to `logits` for every id in `seen`.
void penalizeRepetition(std::vector<float> &logits, const std::vector<int32_t> &seen,
                        double penalty);

/// Temperature, top-k and top-p over `logits`.
Candidates candidatesOf(const std::vector<float> &logits, const SamplingOptions &options);

/// The most likely id (the lowest on ties).
int32_t argmax(const std::vector<float> &logits);

/// A uniform draw in [0, 1) that depends only on (seed, step).
double uniformDraw(uint64_t seed, uint64_t step);

/// The candidate the cumulative probabilities put `u` in [0, 1) on.
int32_t drawFrom(const Candidates &candidates, double u);

/// The next token of a row: greedy or drawn (step keys the draw).
int32_t chooseToken(std::vector<float> logits, const std::vector<int32_t> &seen,
                    const SamplingOptions &options, uint64_t step);

} // namespace mt

#endif // MT_RUNTIME_INFERENCE_SAMPLING_H
