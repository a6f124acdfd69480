//===- Commands.h - what mt-data can do ------------------------*- C++ -*-===//
#ifndef MT_TOOLS_MTDATA_COMMANDS_H
#define MT_TOOLS_MTDATA_COMMANDS_H

#include <cstdint>
#include <string>
#include <vector>

#include "mt/Data/DocumentTokenizer.h"

namespace mt::data_tool {

/// Megatron's --tokenizer-type with --vocab-file/--merge-file (GPT-2; by
/// default the files installed next to mt-data) or --tokenizer-model.
using TokenizerOptions = TokenizerChoice;

/// Megatron's tools/preprocess_data.py.
struct PreprocessOptions {
  std::string input;
  std::string outputPrefix;
  std::vector<std::string> jsonKeys{"text"};
  bool appendEod = false;
  bool splitSentences = false; // one sequence per sentence (BERT, T5)
  int workers = 1;
  TokenizerOptions tokenizer;
};

/// Describes an indexed dataset.
struct InspectOptions {
  std::string prefix;
  bool showTokens = false;
  bool decode = false;
  TokenizerOptions tokenizer;
};

/// Prints GPT samples as training would draw them.
struct SamplesOptions {
  std::string dataPath; // an indexed dataset prefix, or a .txt file
  int64_t seqLength = 0;
  std::string split = "969,30,1"; // Megatron's default
  std::string splitName = "train";
  uint64_t seed = 1234;
  int64_t numEpochs = 1;
  int64_t numSamples = -1; // all
  bool eodMaskLoss = false;
  TokenizerOptions tokenizer;
};

/// Each returns the exit code, having printed any error as
/// "mt-data: error: ..." or "FILE:LINE:COL: error: ...".
int runPreprocess(const PreprocessOptions &options);
int runInspect(const InspectOptions &options);
int runSamples(const SamplesOptions &options);

/// Loads the tokenizer the options name; prints the error and returns false.
bool loadTokenizer(const TokenizerOptions &options, DocumentTokenizer &tokenizer);

} // namespace mt::data_tool

#endif // MT_TOOLS_MTDATA_COMMANDS_H
