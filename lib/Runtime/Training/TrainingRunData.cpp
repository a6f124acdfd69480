//===- TrainingRunData.cpp - the samples a plan's model takes -------------===//
//
// The plan's architecture says which of Megatron's datasets feeds the model
// (ModelArchitecture::dataset): GPT's next-token samples, BERT's masked-LM
// and sentence-order samples (with the WordPiece vocabulary the data were
// made with), T5's span corruption (with the SentencePiece model).
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Training/TrainingRun.h"

#include "mt/Data/SentencePieceTokenizer.h"
#include "mt/Data/WordPieceTokenizer.h"

namespace mt {

namespace {

const char *batchesName(plan::ModelArchitecture::Dataset dataset) {
  switch (dataset) {
  case plan::ModelArchitecture::BERT:
    return "BERT";
  case plan::ModelArchitecture::T5:
    return "T5";
  default:
    return "GPT";
  }
}

} // namespace

bool TrainingRun::openData(std::string &error) {
  const plan::Config &c = trainer_.config();
  plan::ModelArchitecture::Dataset dataset = c.architecture().dataset();
  std::string takes = std::string("this model takes ") + batchesName(dataset) + " batches";
  if (dataset != plan::ModelArchitecture::T5 && !o_.tokenizerModel.empty()) {
    error = "--tokenizer-model is for T5 plans (span corruption needs its ids); " + takes;
    return false;
  }
  if (dataset != plan::ModelArchitecture::BERT && !o_.vocabFile.empty()) {
    error = "--vocab-file is for BERT plans (a WordPiece vocabulary); " + takes +
            (dataset == plan::ModelArchitecture::T5 ? ": give --tokenizer-model" : "");
    return false;
  }
  switch (dataset) {
  case plan::ModelArchitecture::BERT:
    return openBert(error);
  case plan::ModelArchitecture::T5:
    return openT5(error);
  default:
    return data_.open(o_.data, c.vocab_size(), error);
  }
}

bool TrainingRun::openBert(std::string &error) {
  const plan::Config &c = trainer_.config();
  if (o_.vocabFile.empty()) {
    error = "this model takes BERT batches: give --vocab-file, the WordPiece vocabulary its "
            "dataset was made with";
    return false;
  }
  WordPieceTokenizer vocab;
  if (!vocab.load(o_.vocabFile, /*lowerCase=*/true, error))
    return false;
  BertSpecialIds ids;
  ids.pad = vocab.pad();
  ids.cls = vocab.cls();
  ids.sep = vocab.sep();
  ids.mask = vocab.mask();
  ids.vocabSize = vocab.vocabSize();
  ids.isContinuation.resize(static_cast<size_t>(ids.vocabSize));
  for (int32_t id = 0; id < ids.vocabSize; ++id)
    ids.isContinuation[static_cast<size_t>(id)] = vocab.isContinuation(id);
  return data_.openBert(o_.data, c.vocab_size(), ids, error);
}

bool TrainingRun::openT5(std::string &error) {
  const plan::Config &c = trainer_.config();
  if (o_.tokenizerModel.empty()) {
    error = "this model takes T5 batches: give --tokenizer-model, the SentencePiece model its "
            "dataset was made with (the sentinels follow its vocabulary)";
    return false;
  }
  SentencePieceTokenizer tokenizer;
  if (!tokenizer.load(o_.tokenizerModel, error))
    return false;
  T5SpecialIds ids;
  ids.eos = tokenizer.endOfText();
  ids.bos = tokenizer.beginOfText();
  if (ids.eos < 0) {
    error = "the SentencePiece model '" + o_.tokenizerModel +
            "' has no </s> id, which T5 "
            "sequences end with";
    return false;
  }
  // Padding is masked out everywhere; id 0 (<unk>, or T5's own <pad>) fills it.
  ids.pad = 0;
  ids.decoderStart = ids.bos >= 0 ? ids.bos : ids.pad;
  ids.firstSentinel = tokenizer.vocabSize();
  ids.numSentinels = static_cast<int32_t>(o_.vocabExtraIds);
  return data_.openT5(o_.data, c.vocab_size(), ids, c.decoder_seq_length(), error);
}

} // namespace mt
