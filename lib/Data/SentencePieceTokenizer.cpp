//===- SentencePieceTokenizer.cpp - a SentencePiece model's ids ------------===//
#include "mt/Data/SentencePieceTokenizer.h"

#include <sentencepiece_processor.h>

namespace mt {

SentencePieceTokenizer::SentencePieceTokenizer()
    : processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

bool SentencePieceTokenizer::load(const std::string &path, std::string &error) {
  auto status = processor_->Load(path);
  if (!status.ok()) {
    error = "cannot load the SentencePiece model '" + path + "': " + status.ToString();
    return false;
  }
  loaded_ = true;
  return true;
}

void SentencePieceTokenizer::encodeInto(std::string_view text, std::vector<int32_t> &out) const {
  std::vector<int> ids;
  // Encode fails only on an unloaded model, which load() rules out.
  (void)processor_->Encode(text, &ids);
  out.insert(out.end(), ids.begin(), ids.end());
}

bool SentencePieceTokenizer::decode(const std::vector<int32_t> &ids, std::string &text,
                                    std::string &error) const {
  for (int32_t id : ids)
    if (id < 0 || id >= vocabSize()) {
      error = "token id " + std::to_string(id) + " is outside the SentencePiece model's " +
              std::to_string(vocabSize()) + " pieces";
      return false;
    }
  auto status = processor_->Decode(std::vector<int>(ids.begin(), ids.end()), &text);
  if (!status.ok()) {
    error = "SentencePiece cannot decode: " + status.ToString();
    return false;
  }
  return true;
}

int32_t SentencePieceTokenizer::vocabSize() const { return processor_->GetPieceSize(); }
int32_t SentencePieceTokenizer::beginOfText() const { return processor_->bos_id(); }
int32_t SentencePieceTokenizer::endOfText() const { return processor_->eos_id(); }

} // namespace mt
