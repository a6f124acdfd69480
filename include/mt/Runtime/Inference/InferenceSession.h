//===- InferenceSession.h - runs an inference plan -------------*- C++ -*-===//
//
// Holds what an inference plan (mtc --inference) runs on: its code, its
// parameters (from a checkpoint of any layout, or initialized), a KV cache
// per attention site, and one arena. prefill() runs a chunk of up to
// prefillLength() tokens per row at a position, decode() one token per
// row; both append to the caches and leave the logits of the positions
// they ran (a prefill, by default, of its last token only). Every row of
// the batch fills the same cache slot at a time; rows whose prompts are
// shorter are left-padded (setRowStarts): their padding slots stay hidden
// and their tokens count positions from their own first. An
// encoder-decoder's plan (T5) runs encode() once per input first: its
// prefill and decode run the decoder, which reads the encoder's
// cross-attention keys and values. A tensor-parallel plan runs one session
// per rank, each with its pieces of the parameters and its heads' caches;
// the functions' collectives go through the rank's communicator, and every
// rank gets the whole logits.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_INFERENCE_INFERENCESESSION_H
#define MT_RUNTIME_INFERENCE_INFERENCESESSION_H

#include "mt/Checkpoint/CheckpointLayout.h"
#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Code/CpuModule.h"
#include "mt/Runtime/Code/CudaBackend.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class Communicator;

class InferenceSession {
public:
  InferenceSession() = default;
  InferenceSession(const InferenceSession &) = delete;
  InferenceSession &operator=(const InferenceSession &) = delete;
  ~InferenceSession();

  /// Loads the plan's code and allocates every buffer; the parameters start
  /// initialized as the plan says, from `seed` (a rank's pieces: the values
  /// the whole tensor has there). A plan of several (tensor-parallel) ranks
  /// runs as rank `rank` over `comm`. False with `error`.
  bool open(const plan::Plan &plan, uint64_t seed, std::string &error, Communicator *comm = nullptr,
            int64_t rank = 0);
  /// Ranks the plan runs on.
  int64_t ranks() const { return mesh_.numRanks(); }
  /// Reads the parameters from a checkpoint (any layout that saved this
  /// model); `loaded` receives the checkpoint's directory.
  bool loadCheckpoint(const std::string &path, std::string &loaded, std::string &error);

  int64_t batch() const { return batch_; }
  bool isEncoderDecoder() const { return encode_ != nullptr; }
  /// Tokens an encoder input holds at most (0 without an encoder).
  int64_t encoderLength() const { return encoderLength_; }
  int64_t prefillLength() const { return prefillLength_; }
  /// Positions a KV cache holds: the longest sequence, prompt included.
  int64_t capacity() const { return capacity_; }
  int64_t vocabSize() const { return vocab_; }
  /// Bytes of every buffer and the arena: what the plan's memory report says.
  int64_t allocatedBytes() const { return allocated_; }
  const plan::Plan &plan() const { return plan_; }

  /// A ragged batch: row r's tokens start at cache slot starts[r] (its
  /// left padding), 0 <= starts[r] < capacity(); the slots before stay
  /// hidden from every query, and the row's positions count from its first
  /// token. All 0 until set.
  bool setRowStarts(const std::vector<int64_t> &starts, std::string &error);

  /// Runs the encoder on one input per row (each of 1 to encoderLength()
  /// tokens; shorter rows are padded and masked), for the decoder to read.
  bool encode(const std::vector<std::vector<int32_t>> &rows, std::string &error);
  /// Runs `n` tokens per row (`tokens` is [batch, n] row-major, 1 <= n <=
  /// prefillLength()) at positions [position, position + n), which must fit
  /// the cache (position + prefillLength() <= capacity()).
  bool prefill(const std::vector<int32_t> &tokens, int64_t n, int64_t position, std::string &error);
  /// Logits (vocabSize() of them) of row `row`'s token `i` of the last
  /// prefill; null where the plan did not compute them: a plan compiled
  /// without mtc --all-prefill-logits has the last token's (i = n - 1) only.
  const float *prefillLogits(int64_t row, int64_t i) const;
  /// Whether prefillLogits() has every token's logits.
  bool everyPrefillLogit() const { return !picksLastToken_; }
  /// Runs one token per row at `position` < capacity().
  bool decode(const std::vector<int32_t> &tokens, int64_t position, std::string &error);
  /// Logits of row `row`'s token of the last decode.
  const float *decodeLogits(int64_t row) const;
  /// Row r of every cache becomes what row parents[r] held, for positions
  /// [0, upto): a beam search's surviving beams.
  void reorderCaches(const std::vector<int64_t> &parents, int64_t upto);

private:
  Buffer *buffer(const std::string &name);
  Buffer &ensure(const plan::TensorSpec &spec);
  bool call(const plan::Function &fn, std::string &error);
  bool checkRaggedInputs(std::string &error);
  bool initializeParameters(uint64_t seed, std::string &error);
  void setPosition(int64_t position);

  plan::Plan plan_;
  CpuModule module_;
  std::unique_ptr<CudaBackend> cuda_;
  std::map<std::string, std::unique_ptr<Buffer>> buffers_;
  std::unique_ptr<Buffer> arena_;
  std::vector<std::string> caches_;
  bool checkCaches(std::string &error);

  const plan::Function *prefill_ = nullptr, *decode_ = nullptr, *encode_ = nullptr;
  int64_t batch_ = 0, prefillLength_ = 0, capacity_ = 0, vocab_ = 0, paddedVocab_ = 0;
  int64_t encoderLength_ = 0;
  bool encoded_ = false;
  bool picksLastToken_ = false; // the prefill's head reads batch:last_token's pick
  int64_t prefilled_ = 0;       // tokens a row in the last prefill
  std::vector<int64_t> rowStarts_;
  MeshShape mesh_;
  Communicator *comm_ = nullptr;
  int64_t rank_ = 0;
  std::vector<HeldPiece> pieces_; // of the parameters this rank holds
  int64_t allocated_ = 0;
  std::string allocationError_;
};

} // namespace mt

#endif // MT_RUNTIME_INFERENCE_INFERENCESESSION_H
