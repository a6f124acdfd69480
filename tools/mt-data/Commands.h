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
  std::vector<std::string> inputs; // files, directories, glob patterns
  std::string outputPrefix;
  std::vector<std::string> jsonKeys{"text"};
  bool appendEod = false;
  bool splitSentences = false; // one sequence per sentence (BERT, T5)
  int workers = 1;
  TokenizerOptions tokenizer;
};

/// Megatron's tools/merge_datasets.py.
struct MergeOptions {
  std::vector<std::string> inputs; // dataset prefixes, or directories of them
  std::string outputPrefix;
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
int runMerge(const MergeOptions &options);
int runInspect(const InspectOptions &options);
int runSamples(const SamplesOptions &options);

/// The files --input names (InputFiles.cpp); false with `error`.
bool expandInputs(const std::vector<std::string> &words, std::vector<std::string> &files,
                  std::string &error);
/// Whether a file's name is that of a corpus: .jsonl, .json, .txt (+ .gz, .zst).
bool isCorpusFile(const std::string &path);

/// A progress bar on a terminal's stderr (MB, MB/s, ETA) and the final rate.
class Progress {
public:
  Progress(uint64_t totalBytes, bool bar);
  /// Bytes of the files read so far, and of text they held.
  void update(uint64_t fileBytes, uint64_t textBytes);
  /// Prints "read X MB of text in S s: R MB/s with N workers".
  void finish(int workers);

private:
  uint64_t total_, done_ = 0, text_ = 0;
  bool bar_;
  double start_, lastDraw_;
};

/// Loads the tokenizer the options name; prints the error and returns false.
bool loadTokenizer(const TokenizerOptions &options, DocumentTokenizer &tokenizer);

} // namespace mt::data_tool

#endif // MT_TOOLS_MTDATA_COMMANDS_H
