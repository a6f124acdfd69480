//===- DocumentTokenizer.cpp - the tokenizer a dataset is made with --------===//
#include "mt/Data/DocumentTokenizer.h"

namespace mt {

bool DocumentTokenizer::load(const TokenizerChoice &choice, std::string &error) {
  if (choice.type == "SentencePieceTokenizer" || choice.type == "Llama2Tokenizer") {
    if (choice.model.empty() || !choice.vocabFile.empty() || !choice.mergeFile.empty()) {
      error = "--tokenizer-type " + choice.type +
              " takes --tokenizer-model (a SentencePiece "
              "model), not --vocab-file or --merge-file";
      return false;
    }
    kind_ = Kind::SentencePiece;
    return pieces_.load(choice.model, error);
  }
  if (choice.type == "BertWordPieceLowerCase" || choice.type == "BertWordPieceCase") {
    if (choice.vocabFile.empty() || !choice.mergeFile.empty() || !choice.model.empty()) {
      error = "--tokenizer-type " + choice.type +
              " takes --vocab-file (a WordPiece vocabulary, "
              "one token per line), not --merge-file or --tokenizer-model";
      return false;
    }
    kind_ = Kind::WordPiece;
    return wordPiece_.load(choice.vocabFile, choice.type == "BertWordPieceLowerCase", error);
  }
  if (choice.type != "GPT2BPETokenizer") {
    error = "--tokenizer-type " + choice.type +
            " is not supported; GPT2BPETokenizer, "
            "SentencePieceTokenizer, Llama2Tokenizer, BertWordPieceLowerCase and "
            "BertWordPieceCase are";
    return false;
  }
  if (!choice.model.empty()) {
    error = "--tokenizer-model is for --tokenizer-type SentencePieceTokenizer";
    return false;
  }
  if (choice.vocabFile.empty() != choice.mergeFile.empty()) {
    error = "--vocab-file and --merge-file go together";
    return false;
  }
  bool ok = choice.vocabFile.empty()
                ? gpt2_.loadFromDirectory(Gpt2Tokenizer::defaultDirectory(), error)
                : gpt2_.load(choice.vocabFile, choice.mergeFile, error);
  if (!ok)
    error = "cannot load the GPT-2 tokenizer: " + error;
  return ok;
}

void DocumentTokenizer::encodeDocument(std::string_view text, std::vector<int32_t> &out,
                                       BpeCache *cache) const {
  if (kind_ == Kind::Gpt2) {
    gpt2_.encodeInto(text, out, cache);
    return;
  }
  if (kind_ == Kind::WordPiece) {
    wordPiece_.encodeInto(text, out);
    return;
  }
  size_t start = out.size();
  pieces_.encodeInto(text, out);
  // As Llama's tokenizer: a document begins with <s>; an empty one stays empty.
  if (out.size() > start && pieces_.beginOfText() >= 0)
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(start), pieces_.beginOfText());
}

bool DocumentTokenizer::decode(const std::vector<int32_t> &ids, std::string &text,
                               std::string &error) const {
  switch (kind_) {
  case Kind::SentencePiece:
    return pieces_.decode(ids, text, error);
  case Kind::WordPiece:
    return wordPiece_.decode(ids, text, error);
  default:
    return gpt2_.decode(ids, text, error);
  }
}

int32_t DocumentTokenizer::vocabSize() const {
  switch (kind_) {
  case Kind::SentencePiece:
    return pieces_.vocabSize();
  case Kind::WordPiece:
    return wordPiece_.vocabSize();
  default:
    return gpt2_.vocabSize();
  }
}

/// WordPiece has no end-of-document token: [SEP] stands in (Megatron's
/// BERT tokenizers answer eod with [SEP] too).
int32_t DocumentTokenizer::endOfText() const {
  switch (kind_) {
  case Kind::SentencePiece:
    return pieces_.endOfText();
  case Kind::WordPiece:
    return wordPiece_.sep();
  default:
    return gpt2_.endOfText();
  }
}

bool DocumentTokenizer::loaded() const {
  switch (kind_) {
  case Kind::SentencePiece:
    return pieces_.loaded();
  case Kind::WordPiece:
    return wordPiece_.loaded();
  default:
    return gpt2_.loaded();
  }
}

} // namespace mt
