//===- TrainingData.cpp - the corpus mt-run trains on ----------------------===//
#include "mt/Runtime/Training/TrainingData.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/IndexCache.h"
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
                     std::string &error, int64_t *largest = nullptr) {
  std::vector<int32_t> buffer;
  int32_t top = 0;
  for (int64_t d = 0; d < docs.numDocuments(); ++d) {
    buffer.resize(docs.documentLength(d));
    docs.copyTokens(d, 0, static_cast<int64_t>(buffer.size()), buffer.data());
    for (size_t i = 0; i < buffer.size(); ++i)
      if (buffer[i] < 0 || buffer[i] >= vocab) {
        error = "'" + path + "': document " + std::to_string(d) + ", token " + std::to_string(i) +
                " ('" + std::to_string(buffer[i]) + "') is not an id in [0, " +
                std::to_string(vocab) + ")";
        return false;
      } else {
        top = std::max(top, buffer[i]);
      }
  }
  if (largest)
    *largest = top;
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

bool TrainingData::openT5(const DataSources &sources, int64_t vocab, const T5SpecialIds &ids,
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
  t5_ = ids;
  decoderLength_ = decoderLength;
  return openAll(sources, ids.firstSentinel, error);
}

bool TrainingData::openBert(const DataSources &sources, int64_t vocab, const BertSpecialIds &ids,
                            std::string &error) {
  if (ids.vocabSize > vocab) {
    error = "the vocabulary file holds " + std::to_string(ids.vocabSize) +
            " tokens; the model's vocabulary only " + std::to_string(vocab);
    return false;
  }
  bert_ = ids;
  return openAll(sources, ids.vocabSize, error);
}

bool TrainingData::open(const DataSources &sources, int64_t vocab, std::string &error) {
  return openAll(sources, vocab, error);
}

TrainingData::Dataset *TrainingData::find(const std::string &prefix) {
  for (auto &d : datasets_)
    if (d->prefix == prefix)
      return d.get();
  return nullptr;
}

bool TrainingData::openAll(const DataSources &sources, int64_t vocab, std::string &error) {
  sources_ = sources;
  std::vector<const DataBlend *> blends{&sources_.blend};
  for (const DataBlend &b : sources_.splits)
    blends.push_back(&b);
  for (const DataBlend *b : blends)
    for (size_t i = 0; i < b->prefixes.size(); ++i) {
      const std::string &prefix = b->prefixes[i];
      if (std::count(b->prefixes.begin(), b->prefixes.begin() + i, prefix)) {
        error = "the blend lists '" + prefix + "' twice: give it once, with the sum of its weights";
        return false;
      }
      if (find(prefix))
        continue;
      datasets_.push_back(std::make_unique<Dataset>());
      datasets_.back()->prefix = prefix;
      if (!openDataset(*datasets_.back(), vocab, error))
        return false;
    }
  // A dataset is named by its file name, or by its path where two share one.
  auto baseName = [](const std::string &prefix) {
    size_t slash = prefix.find_last_of('/');
    return slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  };
  for (auto &d : datasets_) {
    bool shared = false;
    for (auto &other : datasets_)
      shared = shared || (other != d && baseName(other->prefix) == baseName(d->prefix));
    d->name = shared ? d->prefix : baseName(d->prefix);
  }
  return true;
}

bool TrainingData::openDataset(Dataset &dataset, int64_t vocab, std::string &error) {
  const std::string &path = dataset.prefix;
  bool indexed = exists(indexPath(path)) && exists(dataPath(path));
  if (bert_ && !indexed) {
    error = "BERT trains on an indexed dataset of sentence-split documents: no '" +
            indexPath(path) + "' and '" + dataPath(path) +
            "' (make them with mt-data --split-sentences --tokenizer-type BertWordPieceLowerCase "
            "--vocab-file VOCAB)";
    return false;
  }
  if (t5_ && !indexed && !endsWith(path, ".tokens")) {
    error = "T5 trains on a dataset tokenized with its SentencePiece model: no '" +
            indexPath(path) + "' and '" + dataPath(path) +
            "' (make them with mt-data --tokenizer-type SentencePieceTokenizer "
            "--tokenizer-model MODEL)";
    return false;
  }
  if (indexed) {
    auto docs = std::make_unique<IndexedDocuments>();
    if (!dataset.indexed.open(path, error) || !docs->init(dataset.indexed, error) ||
        !indexedDatasetIdentity(path, dataset.identity, error))
      return false;
    dataset.documents = std::move(docs);
    // The check reads every token: a cache of the largest id saves it.
    if (cache_.tokensBelow(path, dataset.identity, vocab))
      return true;
    int64_t largest = 0;
    if (!checkVocabulary(*dataset.documents, vocab, path, error, &largest))
      return false;
    cache_.saveLargestToken(path, dataset.identity, largest);
    return true;
  } else if (endsWith(path, ".tokens")) {
    std::vector<std::vector<int32_t>> docs;
    if (!readIds(path, docs, error))
      return false;
    dataset.documents = std::make_unique<InMemoryDocuments>(std::move(docs));
  } else if (exists(path)) {
    Gpt2Tokenizer tokenizer;
    std::vector<std::vector<int32_t>> documents;
    if (!tokenizer.loadFromDirectory(Gpt2Tokenizer::defaultDirectory(), error))
      return false;
    bool jsonl = endsWith(path, ".jsonl") || endsWith(path, ".json");
    if (jsonl ? !tokenizeJsonLines(path, tokenizer, documents, error)
              : !tokenizeTextFile(path, tokenizer, documents, error))
      return false;
    dataset.documents = std::make_unique<InMemoryDocuments>(std::move(documents));
  } else {
    error = "no data at '" + path +
            "': expected a text file, a .tokens file, or an indexed "
            "dataset prefix with '" +
            indexPath(path) + "' and '" + dataPath(path) + "'";
    return false;
  }
  return checkVocabulary(*dataset.documents, vocab, path, error);
}

bool TrainingData::buildPart(Dataset &dataset, Split which, int64_t begin, int64_t end,
                             int64_t wanted, std::string &error) {
  DatasetSplit &out = dataset.splits[static_cast<int>(which)];
  uint64_t seed = seed_ + static_cast<uint64_t>(which);
  // Lays out one epoch, then enough epochs for the samples the run draws.
  auto epochs = [&](int64_t perEpoch) {
    return wanted > perEpoch && perEpoch > 0 ? (wanted + perEpoch - 1) / perEpoch + 1 : 0;
  };
  if (t5_) {
    out.family_ = DatasetSplit::Family::T5;
    out.decoderLength_ = decoderLength_;
    T5SampleOptions options;
    options.encoderLength = seq_;
    options.decoderLength = decoderLength_;
    options.seed = seed;
    auto build = [&](std::string &error) {
      T5SampleOptions laid = options;
      if (!out.t5_.build(*dataset.documents, begin, end, *t5_, laid, error))
        return false;
      if (!(laid.numEpochs = epochs(out.t5_.numSamples())))
        return true;
      return out.t5_.build(*dataset.documents, begin, end, *t5_, laid, error);
    };
    if (dataset.identity.empty())
      return build(error);
    return cache_.t5(dataset.prefix, dataset.identity, splitName(which), begin, end, wanted,
                     *dataset.documents, *t5_, options, out.t5_, build, error);
  }
  if (bert_) {
    out.family_ = DatasetSplit::Family::Bert;
    BertSampleOptions options;
    options.seqLength = seq_;
    options.seed = seed;
    auto build = [&](std::string &error) {
      BertSampleOptions laid = options;
      if (!out.bert_.build(dataset.indexed, begin, end, *bert_, laid, error))
        return false;
      if (!(laid.numEpochs = epochs(out.bert_.numSamples())))
        return true;
      return out.bert_.build(dataset.indexed, begin, end, *bert_, laid, error);
    };
    return cache_.bert(dataset.prefix, dataset.identity, splitName(which), begin, end, wanted,
                       dataset.indexed, *bert_, options, out.bert_, build, error);
  }
  GptSampleOptions options;
  options.seqLength = seq_;
  options.seed = seed;
  options.numEpochs = GptDataset::epochsFor(*dataset.documents, begin, end, seq_, wanted);
  if (!dataset.identity.empty())
    return cache_.gpt(dataset.prefix, dataset.identity, splitName(which), *dataset.documents, begin,
                      end, options, out.gpt_, error);
  return out.gpt_.build(*dataset.documents, begin, end, options, error);
}

bool TrainingData::buildSplit(Split which, const DataBlend &blend, bool cut, int64_t wanted,
                              std::string &error) {
  int w = static_cast<int>(which);
  SplitSource &out = splits_[w];
  out = SplitSource();
  out.split_ = out.name_ = splitName(which);
  out.seq_ = seq_;
  parts_[w].clear();
  // Datasets of weight 0 are left out: the greedy rule could still pick them on a tie.
  std::vector<Dataset *> members;
  std::vector<double> weights;
  for (size_t i = 0; i < blend.prefixes.size(); ++i)
    if (blend.weights.empty() || blend.weights[i] > 0) {
      members.push_back(find(blend.prefixes[i]));
      if (!blend.weights.empty())
        weights.push_back(blend.weights[i]);
    }
  std::vector<int64_t> sizes(members.size(), 0);
  if (!weights.empty() && wanted > 0)
    sizes = blendedDatasetSizes(weights, wanted);
  auto buildMember = [&](size_t m) {
    Dataset &d = *members[m];
    int64_t begin = 0, end = d.documents->numDocuments();
    if (cut) {
      std::array<int64_t, 4> bounds = splitBounds(splitWeights_, end);
      begin = bounds[w];
      end = bounds[w + 1];
    }
    // One dataset's validation and test splits cycle through one epoch.
    int64_t alone = which == Split::Train ? wanted : 0;
    return buildPart(d, which, begin, end, members.size() == 1 ? alone : sizes[m], error);
  };
  for (size_t m = 0; m < members.size(); ++m)
    if (!buildMember(m))
      return false;
  if (members.size() == 1) {
    out.parts_ = {&members[0]->splits[w]};
    out.size_ = out.parts_[0]->numSamples();
    return true;
  }
  if (weights.empty()) {
    // No weights: each dataset weighs by its samples, as if concatenated.
    for (Dataset *d : members)
      weights.push_back(static_cast<double>(d->splits[w].numSamples()));
    double total = 0;
    for (double x : weights)
      total += x;
    if (!(total > 0))
      return true; // an empty split
    weights = normalizeWeights(weights);
    if (wanted > 0) {
      sizes = blendedDatasetSizes(weights, wanted);
      for (size_t m = 0; m < members.size(); ++m)
        if (sizes[m] > members[m]->splits[w].numSamples() && !buildMember(m))
          return false;
    }
  }
  // A dataset without samples in this split: training needs all of them;
  // validation and test blend the others.
  for (size_t m = 0; m < members.size();) {
    if (members[m]->splits[w].numSamples() > 0 || weights[m] == 0) {
      ++m;
      continue;
    }
    if (which == Split::Train && wanted > 0) {
      error = "dataset '" + members[m]->prefix + "' holds no training sample of " +
              std::to_string(seq_ + 1) + " tokens" + (cut ? " in its --split share" : "") +
              ": give it more data or leave it out of the blend";
      return false;
    }
    members.erase(members.begin() + m);
    weights.erase(weights.begin() + m);
  }
  if (members.empty())
    return true;
  weights = normalizeWeights(weights);
  int64_t size = wanted;
  if (size == 0)
    for (Dataset *d : members)
      size += d->splits[w].numSamples();
  for (Dataset *d : members) {
    out.parts_.push_back(&d->splits[w]);
    SplitSource alone;
    alone.parts_ = {&d->splits[w]};
    alone.size_ = d->splits[w].numSamples();
    alone.seq_ = seq_;
    alone.split_ = out.split_;
    alone.name_ = d->name;
    parts_[w].push_back(alone);
  }
  // Indexed datasets' blend is cached with their indices.
  std::vector<std::string> prefixes, identities;
  for (Dataset *d : members) {
    prefixes.push_back(d->prefix);
    identities.push_back(d->identity);
  }
  bool cacheable = std::none_of(identities.begin(), identities.end(),
                                [](const std::string &id) { return id.empty(); });
  if (!cacheable)
    out.blend_ = buildBlendingIndex(weights, size);
  else if (!cache_.blend(prefixes, identities, weights, splitName(which), size, out.blend_, error))
    return false;
  out.size_ = size;
  return true;
}

bool TrainingData::build(const std::string &split, int64_t seq, uint64_t seed,
                         const SplitTargets &targets, std::string &error) {
  seq_ = seq;
  seed_ = seed;
  bool cut = !sources_.blend.empty();
  if (cut && !parseSplit(split, splitWeights_, error))
    return false;
  const int64_t wanted[3] = {targets.train, targets.valid, targets.test};
  for (int w = 0; w < 3; ++w)
    if (!buildSplit(static_cast<Split>(w), cut ? sources_.blend : sources_.splits[w], cut,
                    wanted[w], error))
      return false;
  if (targets.train == 0 || train().numSamples() > 0)
    return true;
  if (sources_.blend.empty() && sources_.splits[0].empty()) {
    error = "no training data: give --train-data-path (or --data-path, cut by --split)";
    return false;
  }
  if (t5_)
    error = "the training split holds no T5 sample: its documents need at least two tokens";
  else if (bert_)
    error = "the training split holds no BERT sample: it needs documents of at least two "
            "sentences (mt-data --split-sentences), none longer than 512 tokens";
  else
    error = "the training split holds fewer than " + std::to_string(seq + 1) +
            " tokens: use more data, a shorter --seq-length or a larger train share in --split";
  return false;
}

} // namespace mt
