//===- SentencePieceTokenizer.h - a SentencePiece model's ids --*- C++ -*-===//
//
// Text -> ids and back with a trained SentencePiece model (the library
// Llama and T5 use, Debian's libsentencepiece), as Megatron's
// SentencePieceTokenizer / Llama2Tokenizer does: a document starts with the
// model's beginning-of-sentence id when it has one, and its end is the
// model's end-of-sentence id. Loaded once, it is read-only: threads share it.
// The library is loaded at run time from libmt-sentencepiece.so with a
// symbol scope of its own (it carries a protobuf that would clash with ours).
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_SENTENCEPIECETOKENIZER_H
#define MT_DATA_SENTENCEPIECETOKENIZER_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mt {

class SentencePieceTokenizer {
public:
  SentencePieceTokenizer();
  ~SentencePieceTokenizer();
  SentencePieceTokenizer(const SentencePieceTokenizer &) = delete;
  SentencePieceTokenizer &operator=(const SentencePieceTokenizer &) = delete;

  /// Loads a model file (spm_train's MODEL.model); false with `error`.
  bool load(const std::string &path, std::string &error);

  /// Appends the ids of `text` (no beginning or end id).
  void encodeInto(std::string_view text, std::vector<int32_t> &out) const;
  /// The text `ids` stand for; false (with `error`) for an id outside the model.
  bool decode(const std::vector<int32_t> &ids, std::string &text, std::string &error) const;

  int32_t vocabSize() const;
  /// The beginning-of-sentence id, or -1 when the model has none.
  int32_t beginOfText() const;
  /// The end-of-sentence id (the end of a document), or -1.
  int32_t endOfText() const;
  bool loaded() const { return model_ != nullptr; }

private:
  struct Api;
  std::unique_ptr<Api> api_;
  void *model_ = nullptr;
};

} // namespace mt

#endif // MT_DATA_SENTENCEPIECETOKENIZER_H
