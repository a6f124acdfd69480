//===- Generation.h - text generation over an inference session -*- C++ -*-===//
//
// The prompt goes through the prefill in chunks (the decode for what does
// not fill one), then one token per step through the decode, chosen
// greedily, by sampling (Sampling.h) or by beam search, until the end
// token or the token budget. Every row of the session's batch fills the
// same cache slot at a time: prompts of different lengths are left-padded
// to end together (a ragged batch; the padding stays hidden, and each row
// counts positions from its own first token). A beam search uses the rows
// as its beams. For an
// encoder-decoder (T5) the prompts are the encoder's inputs (one per row,
// of any lengths): the encoder runs once, and the decoder generates from
// its start token.
//
// Beam search scores a hypothesis by its summed log-probabilities divided
// by L^length_penalty, L its generated tokens (the end token included).
// Finished hypotheses are kept, the best `beams` of them; the search stops
// when that many are finished (early stopping) or when no running beam can
// beat the worst kept one, else at the budget, where the running beams
// count as hypotheses too.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_INFERENCE_GENERATION_H
#define MT_RUNTIME_INFERENCE_GENERATION_H

#include "mt/Runtime/Inference/InferenceSession.h"
#include "mt/Runtime/Inference/Sampling.h"

#include <functional>

namespace mt {

struct GenerationOptions {
  int64_t maxNewTokens = 32;
  /// Stop a row at this token (-1: never).
  int32_t eos = -1;
  SamplingOptions sampling;
  /// > 1: beam search over that many beams (the session's batch).
  int64_t beams = 1;
  double lengthPenalty = 1.0;
  bool earlyStopping = false;
  /// The prompt one token at a time through the decode (checks the cache).
  bool promptByDecode = false;
  /// An encoder-decoder's first decoder token (T5's: the padding id, 0), or
  /// the decoder's whole forced prefix when `decoderPrompt` is given.
  int32_t decoderStart = 0;
  std::vector<int32_t> decoderPrompt;
};

struct GenerationStats {
  int64_t promptTokens = 0, newTokens = 0; // per row
  double encodeSeconds = 0, promptSeconds = 0, decodeSeconds = 0;
  int64_t decodeCalls = 0;
};

struct GenerationObserver {
  /// A token chosen for a row, as it is chosen (not for beam search).
  std::function<void(int64_t row, int32_t token)> onToken;
  /// Row 0's logits at each cache slot the model ran (prompt, its left
  /// padding in a ragged batch, and generated).
  std::function<void(int64_t position, const float *logits, int64_t vocab)> onLogits;
};

/// Generates a continuation of each prompt (one per row, of any lengths;
/// one prompt is given to every row). `continuations` receives the
/// new tokens of each row (of the best hypothesis with beam search).
bool generate(InferenceSession &session, const std::vector<std::vector<int32_t>> &prompts,
              const GenerationOptions &options, const GenerationObserver &observer,
              std::vector<std::vector<int32_t>> &continuations, GenerationStats &stats,
              std::string &error);

} // namespace mt

#endif // MT_RUNTIME_INFERENCE_GENERATION_H
