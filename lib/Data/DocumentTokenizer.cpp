//===- DocumentTokenizer.cpp - the tokenizer a dataset is made with --------===//
#include "mt/Data/DocumentTokenizer.h"

namespace mt {

bool DocumentTokenizer::load(const TokenizerChoice &choice, std::string &error) {
  if (choice.type == "SentencePieceTokenizer" || choice.type == "Llama2Tokenizer") {
    if (choice.model.empty() || !choice.vocabFile.empty() || !choice.mergeFile.empty()) {
      error = "--tokenizer-type " + choice.type + " takes --tokenizer-model (a SentencePiece "
              "model), not --vocab-file or --merge-file";
      return false;
    }
    sentencePiece_ = true;
    return pieces_.load(choice.model, error);
  }
  if (choice.type != "GPT2BPETokenizer") {
    error = "--tokenizer-type " + choice.type + " is not supported; GPT2BPETokenizer, "
            "SentencePieceTokenizer and Llama2Tokenizer are";
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
  if (!sentencePiece_) {
    gpt2_.encodeInto(text, out, cache);
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
  return sentencePiece_ ? pieces_.decode(ids, text, error) : gpt2_.decode(ids, text, error);
}

int32_t DocumentTokenizer::vocabSize() const {
  return sentencePiece_ ? pieces_.vocabSize() : gpt2_.vocabSize();
}

int32_t DocumentTokenizer::endOfText() const {
  return sentencePiece_ ? pieces_.endOfText() : gpt2_.endOfText();
}

} // namespace mt
