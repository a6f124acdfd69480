//===- TrainingData.cpp - the corpus mt-run trains on ----------------------===//
#include "mt/Runtime/Training/TrainingData.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/Json.h"
#include "mt/Data/TextDocuments.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace mt {

namespace {

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// One document of whitespace-separated ids per non-empty line.
bool readIds(const std::string &path, std::vector<std::vector<int32_t>> &docs, std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot open data '" + path + "'";
    return false;
  }
  std::string line, word;
  for (int64_t lineNo = 1; std::getline(in, line); ++lineNo) {
    std::istringstream words(line);
    std::vector<int32_t> ids;
    while (words >> word) {
      char *end = nullptr;
      long long id = std::strtoll(word.c_str(), &end, 10);
      if (*end || id < 0 || id > INT32_MAX) {
        error = path + ":" + std::to_string(lineNo) + ": '" + word + "' is not a token id";
        return false;
      }
      ids.push_back(static_cast<int32_t>(id));
    }
    if (!ids.empty())
      docs.push_back(std::move(ids));
  }
  return true;
}

/// Every id below `vocab`, or a message naming the first that is not.
bool checkVocabulary(const DocumentSource &docs, int64_t vocab, const std::string &path,
                     std::string &error) {
  std::vector<int32_t> buffer;
  for (int64_t d = 0; d < docs.numDocuments(); ++d) {
    buffer.resize(docs.documentLength(d));
    docs.copyTokens(d, 0, static_cast<int64_t>(buffer.size()), buffer.data());
    for (size_t i = 0; i < buffer.size(); ++i)
      if (buffer[i] < 0 || buffer[i] >= vocab) {
        error = "'" + path + "': document " + std::to_string(d) + ", token " + std::to_string(i) +
                " ('" + std::to_string(buffer[i]) + "') is not an id in [0, " +
                std::to_string(vocab) + ")";
        return false;
      }
  }
  return true;
}

/// One document per line: the "text" field, tokenized, with end-of-text
/// appended (Megatron's --append-eod). For small corpora; mt-data streams.
bool tokenizeJsonLines(const std::string &path, const Gpt2Tokenizer &tokenizer,
                       std::vector<std::vector<int32_t>> &documents, std::string &error) {
  LineReader reader;
  if (!reader.open(path, error))
    return false;
  std::string line;
  std::vector<std::string> values;
  while (reader.next(line, error)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    size_t column = 0;
    if (!extractStringFields(line, {"text"}, values, error, column)) {
      error = path + ":" + std::to_string(reader.lineNumber()) +
              (column ? ":" + std::to_string(column) : "") + ": " + error;
      return false;
    }
    documents.push_back(tokenizer.encode(values[0]));
    documents.back().push_back(tokenizer.endOfText());
  }
  return error.empty();
}

} // namespace

bool SplitSource::next(int64_t rows, int64_t seq, MicroBatch &batch, std::string &error) {
  if (numSamples() == 0 || seq != seq_) {
    error = "the " + name_ + " split holds no sample of " +
            (isBert_ ? "two segments in " + std::to_string(seq)
             : isT5_ ? "span-corrupted text in " + std::to_string(seq)
                     : std::to_string(seq + 1)) +
            " tokens";
    return false;
  }
  size_t n = static_cast<size_t>(rows * seq);
  batch.tokens.resize(n);
  batch.labels.resize(n);
  batch.lossMask.resize(n);
  if (isT5_) {
    nextT5(rows, batch);
    return true;
  }
  if (isBert_) {
    for (const char *name : {"token_types", "padding_mask", "sop_labels", "sop_mask"})
      batch.inputs[name].assign(n, 0);
    for (int64_t r = 0; r < rows; ++r)
      nextBert(r, seq, batch);
    return true;
  }
  GptSample sample;
  for (int64_t r = 0; r < rows; ++r) {
    dataset_.sample(cursor_++ % dataset_.numSamples(), sample);
    std::copy(sample.tokens.begin(), sample.tokens.end(), batch.tokens.begin() + r * seq);
    std::copy(sample.labels.begin(), sample.labels.end(), batch.labels.begin() + r * seq);
    std::copy(sample.lossMask.begin(), sample.lossMask.end(), batch.lossMask.begin() + r * seq);
  }
  return true;
}

void SplitSource::nextBert(int64_t row, int64_t seq, MicroBatch &batch) {
  BertSample sample;
  bert_.sample(cursor_++ % bert_.numSamples(), sample);
  auto at = [&](std::vector<int32_t> &v) { return v.begin() + row * seq; };
  std::copy(sample.tokens.begin(), sample.tokens.end(), at(batch.tokens));
  std::copy(sample.labels.begin(), sample.labels.end(), at(batch.labels));
  std::copy(sample.lossMask.begin(), sample.lossMask.end(), batch.lossMask.begin() + row * seq);
  std::copy(sample.tokenTypes.begin(), sample.tokenTypes.end(), at(batch.inputs["token_types"]));
  std::copy(sample.paddingMask.begin(), sample.paddingMask.end(), at(batch.inputs["padding_mask"]));
  // The sentence-order label weighs in at the first position only.
  *at(batch.inputs["sop_labels"]) = sample.sentenceOrder;
  *at(batch.inputs["sop_mask"]) = 1;
}

void SplitSource::nextT5(int64_t rows, MicroBatch &batch) {
  T5Sample sample;
  batch.tokens.clear();
  batch.labels.clear();
  batch.lossMask.clear();
  std::vector<int32_t> &padding = batch.inputs["padding_mask"];
  std::vector<int32_t> &decoder = batch.inputs["decoder_tokens"];
  padding.clear();
  decoder.clear();
  for (int64_t r = 0; r < rows; ++r) {
    t5_.sample(cursor_++ % t5_.numSamples(), sample);
    auto append = [](auto &to, const auto &from) { to.insert(to.end(), from.begin(), from.end()); };
    append(batch.tokens, sample.encoderTokens);
    append(padding, sample.paddingMask);
    append(decoder, sample.decoderTokens);
    append(batch.labels, sample.labels);
    append(batch.lossMask, sample.lossMask);
  }
}

bool TrainingData::openT5(const std::string &path, int64_t vocab, const T5SpecialIds &ids,
                          int64_t decoderLength, std::string &error) {
  int64_t needed = static_cast<int64_t>(ids.firstSentinel) + ids.numSentinels;
  if (needed > vocab) {
    error = "the tokenizer's " + std::to_string(ids.firstSentinel) + " ids and " +
            std::to_string(ids.numSentinels) +
            " sentinels (--vocab-extra-ids) need a vocabulary "
            "of " +
            std::to_string(needed) + "; the model's holds " + std::to_string(vocab);
    return false;
  }
  if (ids.numSentinels < 1) {
    error = "T5 span corruption needs sentinel ids: give --vocab-extra-ids >= 1";
    return false;
  }
  bool indexed = exists(indexPath(path)) && exists(dataPath(path));
  if (!indexed && !endsWith(path, ".tokens")) {
    error = "T5 trains on a dataset tokenized with its SentencePiece model: no '" +
            indexPath(path) + "' and '" + dataPath(path) +
            "' (make them with mt-data --tokenizer-type SentencePieceTokenizer "
            "--tokenizer-model MODEL)";
    return false;
  }
  if (!open(path, ids.firstSentinel, error))
    return false;
  t5_ = ids;
  decoderLength_ = decoderLength;
  return true;
}

bool TrainingData::openBert(const std::string &path, int64_t vocab, const BertSpecialIds &ids,
                            std::string &error) {
  if (!(exists(indexPath(path)) && exists(dataPath(path)))) {
    error = "BERT trains on an indexed dataset of sentence-split documents: no '" +
            indexPath(path) + "' and '" + dataPath(path) +
            "' (make them with mt-data --split-sentences --tokenizer-type BertWordPieceLowerCase "
            "--vocab-file VOCAB)";
    return false;
  }
  if (ids.vocabSize > vocab) {
    error = "the vocabulary file holds " + std::to_string(ids.vocabSize) +
            " tokens; the model's vocabulary only " + std::to_string(vocab);
    return false;
  }
  auto docs = std::make_unique<IndexedDocuments>();
  if (!indexed_.open(path, error) || !docs->init(indexed_, error))
    return false;
  documents_ = std::move(docs);
  bert_ = ids;
  return checkVocabulary(*documents_, ids.vocabSize, path, error);
}

bool TrainingData::open(const std::string &path, int64_t vocab, std::string &error) {
  if (exists(indexPath(path)) && exists(dataPath(path))) {
    auto docs = std::make_unique<IndexedDocuments>();
    if (!indexed_.open(path, error) || !docs->init(indexed_, error))
      return false;
    documents_ = std::move(docs);
  } else if (endsWith(path, ".tokens")) {
    std::vector<std::vector<int32_t>> docs;
    if (!readIds(path, docs, error))
      return false;
    documents_ = std::make_unique<InMemoryDocuments>(std::move(docs));
  } else if (exists(path)) {
    Gpt2Tokenizer tokenizer;
    std::vector<std::vector<int32_t>> documents;
    if (!tokenizer.loadFromDirectory(Gpt2Tokenizer::defaultDirectory(), error))
      return false;
    bool jsonl = endsWith(path, ".jsonl") || endsWith(path, ".json");
    if (jsonl ? !tokenizeJsonLines(path, tokenizer, documents, error)
              : !tokenizeTextFile(path, tokenizer, documents, error))
      return false;
    documents_ = std::make_unique<InMemoryDocuments>(std::move(documents));
  } else {
    error = "no data at '" + path +
            "': expected a text file, a .tokens file, or an indexed "
            "dataset prefix with '" +
            indexPath(path) + "' and '" + dataPath(path) + "'";
    return false;
  }
  return checkVocabulary(*documents_, vocab, path, error);
}

bool TrainingData::build(const std::string &split, int64_t seq, uint64_t seed, int64_t trainSamples,
                         std::string &error) {
  std::array<double, 3> weights;
  if (!parseSplit(split, weights, error))
    return false;
  std::array<int64_t, 4> bounds = splitBounds(weights, documents_->numDocuments());
  auto buildSplit = [&](SplitSource &out, Split which, int64_t wanted) {
    out.name_ = splitName(which);
    out.seq_ = seq;
    int64_t begin = bounds[static_cast<int>(which)], end = bounds[static_cast<int>(which) + 1];
    if (t5_) {
      out.isT5_ = true;
      T5SampleOptions options;
      options.encoderLength = seq;
      options.decoderLength = decoderLength_;
      options.seed = seed + static_cast<uint64_t>(which);
      if (!out.t5_.build(*documents_, begin, end, *t5_, options, error))
        return false;
      int64_t perEpoch = out.t5_.numSamples();
      if (wanted > perEpoch && perEpoch > 0) {
        options.numEpochs = (wanted + perEpoch - 1) / perEpoch + 1;
        return out.t5_.build(*documents_, begin, end, *t5_, options, error);
      }
      return true;
    }
    if (bert_) {
      out.isBert_ = true;
      BertSampleOptions options;
      options.seqLength = seq;
      options.seed = seed + static_cast<uint64_t>(which);
      if (!out.bert_.build(indexed_, begin, end, *bert_, options, error))
        return false;
      int64_t perEpoch = out.bert_.numSamples();
      if (wanted > perEpoch && perEpoch > 0) {
        options.numEpochs = (wanted + perEpoch - 1) / perEpoch + 1;
        return out.bert_.build(indexed_, begin, end, *bert_, options, error);
      }
      return true;
    }
    GptSampleOptions options;
    options.seqLength = seq;
    options.seed = seed + static_cast<uint64_t>(which);
    if (!out.dataset_.build(*documents_, begin, end, options, error))
      return false;
    // Lay out enough epochs for the samples the run will draw.
    int64_t perEpoch = out.dataset_.numSamples();
    if (wanted > perEpoch && perEpoch > 0) {
      options.numEpochs = (wanted + perEpoch - 1) / perEpoch + 1;
      return out.dataset_.build(*documents_, begin, end, options, error);
    }
    return true;
  };
  if (!buildSplit(train_, Split::Train, trainSamples) || !buildSplit(valid_, Split::Valid, 0))
    return false;
  if (t5_ && train_.numSamples() == 0 && trainSamples > 0) {
    error = "the training split holds no T5 sample: its documents need at least two tokens";
    return false;
  }
  if (bert_ && train_.numSamples() == 0 && trainSamples > 0) {
    error = "the training split holds no BERT sample: it needs documents of at least two "
            "sentences (mt-data --split-sentences), none longer than 512 tokens";
    return false;
  }
  if (train_.numSamples() == 0 && trainSamples > 0) {
    error = "the training split holds fewer than " + std::to_string(seq + 1) +
            " tokens: use more data, a shorter --seq-length or a larger train share in --split";
    return false;
  }
  return true;
}

} // namespace mt
