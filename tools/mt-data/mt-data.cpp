//===- mt-data.cpp - Megatron-compatible data preparation ------------------===//
//
// mt-data --input FILE... --output-prefix P [--json-keys K...] [--append-eod] [--workers N]
//   tokenizes a corpus into P_<key>_document.bin/.idx, as Megatron's
//   tools/preprocess_data.py does with --tokenizer-type GPT2BPETokenizer.
// mt-data --merge PREFIX... --output-prefix P
//   merges datasets into one, as Megatron's tools/merge_datasets.py.
// mt-data --inspect PREFIX [--show-tokens] [--decode]
//   checks and describes an indexed dataset.
// mt-data --samples DATA --seq-length N [--split S] [--split-name NAME] ...
//   prints GPT samples (tokens, labels, loss mask) as training draws them.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace mt::data_tool;

namespace {

const char *kUsage = R"(usage:
  mt-data --input FILE... --output-prefix PREFIX [--json-keys KEY...] [--append-eod]
          [--split-sentences] [--workers N] [--vocab-file FILE --merge-file FILE]
          [--tokenizer-type GPT2BPETokenizer | SentencePieceTokenizer --tokenizer-model M
           | BertWordPieceLowerCase --vocab-file VOCAB | BertWordPieceCase --vocab-file VOCAB]
      Tokenizes the FILEs, one after another, into PREFIX_<KEY>_document.bin and
      .idx (Megatron's indexed dataset). A FILE is JSON lines (.jsonl or .json:
      one object per line, text in field KEY, default "text") or plain text
      (.txt: one document per paragraph, paragraphs separated by blank lines;
      named by KEY too), either possibly compressed (.gz, .zst); a directory
      (its corpus files, recursively) or a glob pattern ('data/*.jsonl.zst'),
      both in sorted order. A terminal shows a progress bar (MB/s, ETA); the
      last line gives the rate.
      --append-eod ends each non-empty document with <|endoftext|> (50256), or
      with the SentencePiece model's </s>; a SentencePiece document starts with
      <s> (Llama's tokenizer; Llama2Tokenizer is the same type).
      --split-sentences keeps each sentence of a document as its own sequence
      (BERT's samples are made of whole sentences; docs/data.md says how it
      splits). BertWordPiece* is BERT's WordPiece over a vocab.txt.
      --workers N tokenizes with N threads; the output does not depend on N.
  mt-data --merge PREFIX... --output-prefix PREFIX
      Merges indexed datasets (or every dataset in a directory, sorted) of one
      tokenizer into one, documents in order (Megatron's merge_datasets.py).
  mt-data --inspect PREFIX [--show-tokens] [--decode]
      Checks PREFIX.idx and PREFIX.bin and describes them; --show-tokens
      prints each document's ids, --decode its text.
  mt-data --samples DATA --seq-length N [--split 969,30,1] [--split-name train]
          [--seed 1234] [--num-epochs 1] [--num-samples K] [--eod-mask-loss]
      Prints the GPT samples of one split of DATA (an indexed dataset prefix,
      or a .txt file tokenized on the fly), in the order training draws them.
The GPT-2 vocabulary defaults to <bin>/../share/mt/gpt2/{encoder.json,vocab.bpe}.
)";

int usageError(const std::string &message) {
  std::fprintf(stderr, "mt-data: error: %s\n(run 'mt-data --help' for usage)\n", message.c_str());
  return 1;
}

/// A command line of "--flag value", "--flag=value" and "--switch" words.
class Arguments {
public:
  Arguments(int argc, char **argv) : words_(argv + 1, argv + argc) {}

  bool done() const { return index_ >= words_.size(); }
  /// The next flag's name; its "=value" part, if any, is kept for value().
  std::string nextFlag() {
    std::string word = words_[index_++];
    inlineValue_.reset();
    size_t eq = word.find('=');
    if (word.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue_ = word.substr(eq + 1);
      word = word.substr(0, eq);
    }
    flag_ = word;
    return word;
  }
  bool value(std::string &out, std::string &error) {
    if (inlineValue_) {
      out = *inlineValue_;
      inlineValue_.reset();
      return true;
    }
    if (done() || words_[index_].rfind("--", 0) == 0) {
      error = flag_ + " needs a value";
      return false;
    }
    out = words_[index_++];
    return true;
  }
  /// One or more values, up to the next flag (Megatron's nargs='+').
  bool values(std::vector<std::string> &out, std::string &error) {
    out.clear();
    if (inlineValue_) {
      out.push_back(*inlineValue_);
      inlineValue_.reset();
    }
    while (!done() && words_[index_].rfind("--", 0) != 0)
      out.push_back(words_[index_++]);
    if (out.empty()) {
      error = flag_ + " needs at least one value";
      return false;
    }
    return true;
  }
  bool integer(int64_t &out, int64_t min, int64_t max, std::string &error) {
    std::string text;
    if (!value(text, error))
      return false;
    char *end = nullptr;
    errno = 0;
    long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || parsed < min || parsed > max) {
      error = flag_ + " expects an integer from " + std::to_string(min) + " to " +
              std::to_string(max) + ", got '" + text + "'";
      return false;
    }
    out = parsed;
    return true;
  }
  /// Switches take no value.
  bool noValue(std::string &error) {
    if (inlineValue_) {
      error = flag_ + " takes no value";
      return false;
    }
    return true;
  }

private:
  std::vector<std::string> words_;
  size_t index_ = 0;
  std::string flag_;
  std::optional<std::string> inlineValue_;
};

enum class Mode { None, Preprocess, Inspect, Samples, Merge };

} // namespace

/// What the command line asks for.
struct CommandLine {
  PreprocessOptions preprocess;
  MergeOptions merge;
  InspectOptions inspect;
  SamplesOptions samples;
  TokenizerOptions tokenizer;
  Mode mode = Mode::None;
  std::vector<std::string> seen; // the flags given, in order
};

/// Reads the flags into `c`; an exit code when the tool is done (--help, a
/// bad flag), nothing when it goes on.
std::optional<int> parseCommandLine(int argc, char **argv, CommandLine &c) {
  PreprocessOptions &preprocess = c.preprocess;
  InspectOptions &inspect = c.inspect;
  SamplesOptions &samples = c.samples;
  TokenizerOptions &tokenizer = c.tokenizer;
  Mode &mode = c.mode;
  std::vector<std::string> &seen = c.seen;
  auto setMode = [&](Mode m, std::string &error) {
    if (mode != Mode::None && mode != m) {
      error = "--input, --merge, --inspect and --samples are separate commands; give one";
      return false;
    }
    mode = m;
    return true;
  };

  Arguments args(argc, argv);
  std::string error;
  while (!args.done()) {
    std::string flag = args.nextFlag();
    int64_t number = 0;
    bool ok = true;
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (flag == "--input") {
      ok = setMode(Mode::Preprocess, error) && args.values(preprocess.inputs, error);
    } else if (flag == "--merge") {
      ok = setMode(Mode::Merge, error) && args.values(c.merge.inputs, error);
    } else if (flag == "--output-prefix") {
      ok = args.value(preprocess.outputPrefix, error);
      c.merge.outputPrefix = preprocess.outputPrefix;
    } else if (flag == "--json-keys" || flag == "--json-key") {
      ok = args.values(preprocess.jsonKeys, error);
    } else if (flag == "--append-eod") {
      ok = args.noValue(error);
      preprocess.appendEod = true;
    } else if (flag == "--split-sentences") {
      ok = args.noValue(error);
      preprocess.splitSentences = true;
    } else if (flag == "--workers") {
      ok = args.integer(number, 1, 1024, error);
      preprocess.workers = static_cast<int>(number);
    } else if (flag == "--tokenizer-type") {
      ok = args.value(tokenizer.type, error);
    } else if (flag == "--tokenizer-model") {
      ok = args.value(tokenizer.model, error);
    } else if (flag == "--vocab-file") {
      ok = args.value(tokenizer.vocabFile, error);
    } else if (flag == "--merge-file") {
      ok = args.value(tokenizer.mergeFile, error);
    } else if (flag == "--inspect") {
      ok = setMode(Mode::Inspect, error) && args.value(inspect.prefix, error);
    } else if (flag == "--show-tokens") {
      ok = args.noValue(error);
      inspect.showTokens = true;
    } else if (flag == "--decode") {
      ok = args.noValue(error);
      inspect.decode = true;
    } else if (flag == "--samples") {
      ok = setMode(Mode::Samples, error) && args.value(samples.dataPath, error);
    } else if (flag == "--seq-length") {
      ok = args.integer(samples.seqLength, 1, std::numeric_limits<int32_t>::max(), error);
    } else if (flag == "--split") {
      ok = args.value(samples.split, error);
    } else if (flag == "--split-name") {
      ok = args.value(samples.splitName, error);
    } else if (flag == "--seed") {
      ok = args.integer(number, 0, std::numeric_limits<int64_t>::max(), error);
      samples.seed = static_cast<uint64_t>(number);
    } else if (flag == "--num-epochs") {
      ok = args.integer(samples.numEpochs, 1, 1 << 20, error);
    } else if (flag == "--num-samples") {
      ok = args.integer(samples.numSamples, 0, std::numeric_limits<int64_t>::max(), error);
    } else if (flag == "--eod-mask-loss") {
      ok = args.noValue(error);
      samples.eodMaskLoss = true;
    } else {
      return usageError("unknown option '" + flag + "'");
    }
    if (!ok)
      return usageError(error);
    seen.push_back(flag);
  }

  return std::nullopt;
}

int main(int argc, char **argv) {
  CommandLine c;
  if (std::optional<int> done = parseCommandLine(argc, argv, c))
    return *done;
  PreprocessOptions &preprocess = c.preprocess;
  InspectOptions &inspect = c.inspect;
  SamplesOptions &samples = c.samples;
  const TokenizerOptions &tokenizer = c.tokenizer;
  const std::vector<std::string> &seen = c.seen;
  Mode mode = c.mode;
  std::string error;

  auto only = [&](std::initializer_list<const char *> allowed, const char *command) {
    for (const std::string &flag : seen) {
      bool fine = false;
      for (const char *a : allowed)
        fine = fine || flag == a;
      if (!fine) {
        error = flag + " does not apply to " + command;
        return false;
      }
    }
    return true;
  };
  switch (mode) {
  case Mode::None:
    return usageError("nothing to do: give --input, --merge, --inspect or --samples");
  case Mode::Merge:
    if (!only({"--merge", "--output-prefix"}, "--merge"))
      return usageError(error);
    if (c.merge.outputPrefix.empty())
      return usageError("--merge needs --output-prefix");
    return runMerge(c.merge);
  case Mode::Preprocess:
    if (!only({"--input", "--output-prefix", "--json-keys", "--json-key", "--append-eod",
               "--split-sentences", "--workers", "--vocab-file", "--merge-file", "--tokenizer-type",
               "--tokenizer-model"},
              "--input"))
      return usageError(error);
    if (preprocess.outputPrefix.empty())
      return usageError("--input needs --output-prefix");
    preprocess.tokenizer = tokenizer;
    return runPreprocess(preprocess);
  case Mode::Inspect:
    if (!only({"--inspect", "--show-tokens", "--decode", "--vocab-file", "--merge-file",
               "--tokenizer-type", "--tokenizer-model"},
              "--inspect"))
      return usageError(error);
    inspect.tokenizer = tokenizer;
    return runInspect(inspect);
  case Mode::Samples:
    if (!only({"--samples", "--seq-length", "--split", "--split-name", "--seed", "--num-epochs",
               "--num-samples", "--eod-mask-loss", "--vocab-file", "--merge-file",
               "--tokenizer-type", "--tokenizer-model"},
              "--samples"))
      return usageError(error);
    if (samples.seqLength == 0)
      return usageError("--samples needs --seq-length");
    samples.tokenizer = tokenizer;
    return runSamples(samples);
  }
  return 1;
}
