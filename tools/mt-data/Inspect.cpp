//===- Inspect.cpp - describing datasets and their GPT samples -------------===//
#include "Commands.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/GptDataset.h"
#include "mt/Data/IndexedDataset.h"
#include "mt/Data/TextDocuments.h"

#include <cstdio>
#include <memory>

namespace mt::data_tool {
namespace {

void printIds(const char *label, const std::vector<int32_t> &ids) {
  std::printf("  %s:", label);
  for (int32_t id : ids)
    std::printf(" %d", id);
  std::printf("\n");
}

/// Text as one line: escapes for "\n", "\t", "\r" and "\\".
std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\\':
      out += "\\\\";
      break;
    default:
      out += c;
    }
  }
  return out;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int runInspect(const InspectOptions &options) {
  std::string error;
  IndexedDataset dataset;
  if (!dataset.open(options.prefix, error)) {
    std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
    return 1;
  }
  DocumentTokenizer tokenizer;
  if (options.decode && !loadTokenizer(options.tokenizer, tokenizer))
    return 1;

  int64_t tokens = 0;
  for (int64_t s = 0; s < dataset.numSequences(); ++s)
    tokens += dataset.sequenceLength(s);
  std::printf("%s: MMIDIDX version 1, dtype %s (code %d)\n", options.prefix.c_str(),
              tokenDTypeName(dataset.dtype()), static_cast<int>(dataset.dtype()));
  std::printf("sequences: %lld\ndocuments: %lld\ntokens: %lld\n",
              static_cast<long long>(dataset.numSequences()),
              static_cast<long long>(dataset.numDocuments()), static_cast<long long>(tokens));
  if (!options.showTokens && !options.decode)
    return 0;

  for (int64_t d = 0; d < dataset.numDocuments(); ++d) {
    int64_t first = dataset.documentIndex(d), last = dataset.documentIndex(d + 1);
    std::vector<int32_t> ids;
    for (int64_t s = first; s < last; ++s)
      for (int64_t k = 0; k < dataset.sequenceLength(s); ++k)
        ids.push_back(static_cast<int32_t>(dataset.token(s, k)));
    std::printf("document %lld: sequences [%lld, %lld), %zu tokens\n", static_cast<long long>(d),
                static_cast<long long>(first), static_cast<long long>(last), ids.size());
    if (options.showTokens)
      printIds("ids", ids);
    if (options.decode) {
      std::string text;
      if (!tokenizer.decode(ids, text, error)) {
        std::fprintf(stderr, "mt-data: error: document %lld: %s\n", static_cast<long long>(d),
                     error.c_str());
        return 1;
      }
      std::printf("  text: %s\n", escaped(text).c_str());
    }
  }
  return 0;
}

int runSamples(const SamplesOptions &options) {
  std::string error;
  std::array<double, 3> weights;
  if (!parseSplit(options.split, weights, error)) {
    std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
    return 1;
  }
  Split split;
  if (options.splitName == "train")
    split = Split::Train;
  else if (options.splitName == "valid")
    split = Split::Valid;
  else if (options.splitName == "test")
    split = Split::Test;
  else {
    std::fprintf(stderr, "mt-data: error: --split-name is train, valid or test, not '%s'\n",
                 options.splitName.c_str());
    return 1;
  }

  // The documents: an indexed dataset, or a text file tokenized here.
  IndexedDataset dataset;
  IndexedDocuments indexed;
  std::unique_ptr<InMemoryDocuments> inMemory;
  const DocumentSource *source;
  if (endsWith(options.dataPath, ".txt")) {
    DocumentTokenizer tokenizer;
    if (!loadTokenizer(options.tokenizer, tokenizer))
      return 1;
    if (!tokenizer.isGpt2()) {
      std::fprintf(stderr, "mt-data: error: --samples of a .txt file tokenize it with GPT-2's "
                           "tokenizer; preprocess it with --input first for another one\n");
      return 1;
    }
    std::vector<std::vector<int32_t>> documents;
    if (!tokenizeTextFile(options.dataPath, tokenizer.gpt2(), documents, error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      return 1;
    }
    inMemory = std::make_unique<InMemoryDocuments>(std::move(documents));
    source = inMemory.get();
  } else {
    if (!dataset.open(options.dataPath, error) || !indexed.init(dataset, error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      return 1;
    }
    source = &indexed;
  }

  std::array<int64_t, 4> bounds = splitBounds(weights, source->numDocuments());
  int index = static_cast<int>(split);
  GptSampleOptions sampleOptions;
  sampleOptions.seqLength = options.seqLength;
  sampleOptions.seed = options.seed;
  sampleOptions.numEpochs = options.numEpochs;
  sampleOptions.eodMaskLoss = options.eodMaskLoss;
  GptDataset samples;
  if (!samples.build(*source, bounds[index], bounds[index + 1], sampleOptions, error)) {
    std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "split %s: documents [%lld, %lld) of %lld, %lld tokens per epoch, %lld epochs, "
      "%lld samples of %lld tokens\n",
      splitName(split), static_cast<long long>(bounds[index]),
      static_cast<long long>(bounds[index + 1]), static_cast<long long>(source->numDocuments()),
      static_cast<long long>(samples.tokensPerEpoch()), static_cast<long long>(options.numEpochs),
      static_cast<long long>(samples.numSamples()), static_cast<long long>(options.seqLength));
  int64_t count = options.numSamples < 0 ? samples.numSamples()
                                         : std::min(options.numSamples, samples.numSamples());
  GptSample sample;
  for (int64_t i = 0; i < count; ++i) {
    samples.sample(i, sample);
    std::printf("sample %lld: starts at token %lld\n", static_cast<long long>(i),
                static_cast<long long>(samples.sampleStart(i)));
    printIds("tokens", sample.tokens);
    printIds("labels", sample.labels);
    std::printf("  loss_mask:");
    for (float m : sample.lossMask)
      std::printf(" %g", m);
    std::printf("\n");
  }
  return 0;
}

} // namespace mt::data_tool
