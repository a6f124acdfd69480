//===- DocumentTokenizer.h - the tokenizer a dataset is made with -*- C++ -*-===//
//
// Megatron's --tokenizer-type: GPT2BPETokenizer (byte-level BPE from
// --vocab-file/--merge-file, or the installed GPT-2 files) or
// SentencePieceTokenizer (alias Llama2Tokenizer; a --tokenizer-model file), or
// BertWordPieceLowerCase / BertWordPieceCase (BERT's WordPiece from a
// --vocab-file; no beginning or end id: BERT's samples add [CLS] and [SEP]).
// A document's ids are what the tokenizer makes of its text, preceded by
// the beginning-of-sentence id where the tokenizer has one (SentencePiece
// models, as Llama's tokenizer adds it); the end-of-document id is the
// tokenizer's end token.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_DOCUMENTTOKENIZER_H
#define MT_DATA_DOCUMENTTOKENIZER_H

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/SentencePieceTokenizer.h"
#include "mt/Data/WordPieceTokenizer.h"

namespace mt {

struct TokenizerChoice {
  std::string type = "GPT2BPETokenizer";
  std::string vocabFile, mergeFile; // GPT-2
  std::string model;                // SentencePiece
};

class DocumentTokenizer {
public:
  /// False with `error` naming what is wrong (flags, files).
  bool load(const TokenizerChoice &choice, std::string &error);

  /// Appends the ids of one document's text. `cache` (GPT-2's, one per
  /// thread) may be null.
  void encodeDocument(std::string_view text, std::vector<int32_t> &out,
                      BpeCache *cache = nullptr) const;
  bool decode(const std::vector<int32_t> &ids, std::string &text, std::string &error) const;
  int32_t vocabSize() const;
  int32_t endOfText() const;
  bool isGpt2() const { return kind_ == Kind::Gpt2; }
  bool loaded() const;
  const Gpt2Tokenizer &gpt2() const { return gpt2_; }

private:
  Gpt2Tokenizer gpt2_;
  SentencePieceTokenizer pieces_;
  WordPieceTokenizer wordPiece_;
  enum class Kind { Gpt2, SentencePiece, WordPiece } kind_ = Kind::Gpt2;
};

} // namespace mt

#endif // MT_DATA_DOCUMENTTOKENIZER_H
