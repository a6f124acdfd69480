//===- Preprocess.cpp - a corpus into Megatron's indexed dataset -----------===//
//
// Streams the inputs, one file after another: a batch of lines (or
// paragraphs) is tokenized by the workers, who take items a few at a time,
// while the next batch is read; then it is written in input order. So memory
// holds two batches plus the index arrays (12 bytes a document), and the
// output is the same for any number of workers.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/IndexedDataset.h"
#include "mt/Data/Json.h"
#include "mt/Data/SentenceSplitter.h"
#include "mt/Data/TextDocuments.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <sys/stat.h>
#include <thread>

namespace mt::data_tool {
namespace {

enum class InputFormat { JsonLines, Text };

/// Items each worker tokenizes per batch, and takes at a time.
constexpr size_t kItemsPerWorker = 256;
constexpr size_t kItemsPerTake = 8;

struct Item {
  int64_t line = 0; // first line of the item in the input
  std::string text; // a JSON line, or a paragraph
};

struct Tokenized {
  std::vector<std::vector<int32_t>> documents; // one per key
  /// --split-sentences: where each document's sentences end in its ids.
  std::vector<std::vector<size_t>> sentenceEnds;
  std::string error;
  size_t column = 0; // of the error, 0 when none applies
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void tokenizeItem(const Item &item, InputFormat format, const PreprocessOptions &options,
                  const DocumentTokenizer &tokenizer, BpeCache &cache, Tokenized &out) {
  std::vector<std::string> texts;
  if (format == InputFormat::JsonLines) {
    if (!extractStringFields(item.text, options.jsonKeys, texts, out.error, out.column))
      return;
  } else {
    texts.push_back(item.text);
  }
  out.documents.resize(texts.size());
  out.sentenceEnds.resize(texts.size());
  for (size_t k = 0; k < texts.size(); ++k) {
    if (options.splitSentences) {
      // As Megatron: each sentence tokenized alone; empty ones dropped.
      for (std::string_view sentence : splitSentences(texts[k])) {
        tokenizer.encodeDocument(sentence, out.documents[k], &cache);
        if (out.sentenceEnds[k].empty() || out.sentenceEnds[k].back() != out.documents[k].size())
          out.sentenceEnds[k].push_back(out.documents[k].size());
      }
      if (!out.documents[k].empty() && out.sentenceEnds[k].front() == 0)
        out.sentenceEnds[k].erase(out.sentenceEnds[k].begin());
    } else {
      tokenizer.encodeDocument(texts[k], out.documents[k], &cache);
    }
    // As Megatron: an empty document stays empty, without an end token.
    if (options.appendEod && !out.documents[k].empty()) {
      out.documents[k].push_back(tokenizer.endOfText());
      if (options.splitSentences)
        out.sentenceEnds[k].back() = out.documents[k].size();
    }
  }
}

/// One document: one sequence, or with --split-sentences one per sentence.
bool writeDocument(IndexedDatasetWriter &writer, const std::vector<int32_t> &ids,
                   const std::vector<size_t> &sentenceEnds, bool split, std::string &error) {
  if (!split)
    return writer.addDocument(ids.data(), ids.size(), error);
  size_t begin = 0;
  for (size_t end : sentenceEnds) {
    if (!writer.addSequence(ids.data() + begin, end - begin, error))
      return false;
    begin = end;
  }
  writer.endDocument();
  return true;
}

/// The format of a corpus file from its name (less .gz or .zst); false
/// after printing what is wrong.
bool inputFormatOf(const std::string &path, const PreprocessOptions &options, InputFormat &format) {
  std::string plain = withoutCompressionSuffix(path);
  if (endsWith(plain, ".jsonl") || endsWith(plain, ".json")) {
    format = InputFormat::JsonLines;
    return true;
  }
  if (!endsWith(plain, ".txt")) {
    std::fprintf(stderr,
                 "mt-data: error: cannot tell the format of '%s': name JSON lines .jsonl or "
                 ".json, plain text .txt (each may end in .gz or .zst)\n",
                 path.c_str());
    return false;
  }
  format = InputFormat::Text;
  if (options.jsonKeys.size() != 1) {
    std::fprintf(stderr,
                 "mt-data: error: a .txt input has one text per document; give one key "
                 "(it names the output), not %zu\n",
                 options.jsonKeys.size());
    return false;
  }
  return true;
}

/// One input file's items, read a batch at a time.
class ItemReader {
public:
  bool open(const std::string &path, InputFormat format, std::string &error) {
    path_ = path;
    format_ = format;
    return format == InputFormat::JsonLines ? lines_.open(path, error)
                                            : paragraphs_.open(path, error);
  }
  /// Up to `count` items into `items` (cleared first); false after printing
  /// an error. `textBytes` grows by the text read.
  bool read(size_t count, std::vector<Item> &items, uint64_t &textBytes) {
    items.clear();
    std::string error;
    while (items.size() < count) {
      Item item;
      bool got = format_ == InputFormat::JsonLines ? lines_.next(item.text, error)
                                                   : paragraphs_.next(item.text, item.line, error);
      if (!error.empty()) {
        if (format_ == InputFormat::Text && paragraphs_.errorLine())
          std::fprintf(stderr, "%s:%lld:%zu: error: %s\n", path_.c_str(),
                       static_cast<long long>(paragraphs_.errorLine()), paragraphs_.errorColumn(),
                       error.c_str());
        else
          std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
        return false;
      }
      if (!got)
        break;
      if (format_ == InputFormat::JsonLines)
        item.line = lines_.lineNumber();
      textBytes += item.text.size() + 1;
      items.push_back(std::move(item));
    }
    return true;
  }
  uint64_t fileBytesRead() const {
    return format_ == InputFormat::JsonLines ? lines_.fileBytesRead() : paragraphs_.fileBytesRead();
  }

private:
  std::string path_;
  InputFormat format_ = InputFormat::JsonLines;
  LineReader lines_;
  ParagraphReader paragraphs_;
};

/// What one run of mt-data writes: a dataset per key.
class Outputs {
public:
  bool open(const PreprocessOptions &options, TokenDType dtype) {
    std::string error;
    // Megatron's names: PREFIX_<key>_document.{bin,idx}.
    for (const std::string &key : options.jsonKeys) {
      prefixes_.push_back(options.outputPrefix + "_" + key + "_document");
      writers_.push_back(std::make_unique<IndexedDatasetWriter>());
      if (!writers_.back()->open(prefixes_.back(), dtype, error))
        return fail(error);
    }
    return true;
  }
  /// Writes a tokenized batch in order; the first bad item ends the run.
  bool write(const std::string &path, const std::vector<Item> &items,
             const std::vector<Tokenized> &results, bool splitSentences) {
    std::string error;
    for (size_t i = 0; i < items.size(); ++i) {
      const Tokenized &r = results[i];
      if (!r.error.empty()) {
        std::string where = path + ":" + std::to_string(items[i].line);
        if (r.column)
          where += ":" + std::to_string(r.column);
        std::fprintf(stderr, "%s: error: %s\n", where.c_str(), r.error.c_str());
        discard();
        return false;
      }
      for (size_t k = 0; k < writers_.size(); ++k)
        if (!writeDocument(*writers_[k], r.documents[k], r.sentenceEnds[k], splitSentences, error))
          return fail(error);
    }
    return true;
  }
  bool finish(const PreprocessOptions &options, TokenDType dtype) {
    std::string error;
    for (size_t k = 0; k < writers_.size(); ++k) {
      if (!writers_[k]->finish(error))
        return fail(error);
      std::printf("%s: %lld documents, %lld tokens (%s) -> %s, %s\n", options.jsonKeys[k].c_str(),
                  static_cast<long long>(writers_[k]->numDocuments()),
                  static_cast<long long>(writers_[k]->numTokens()), tokenDTypeName(dtype),
                  dataPath(prefixes_[k]).c_str(), indexPath(prefixes_[k]).c_str());
    }
    return true;
  }
  void discard() {
    for (auto &writer : writers_)
      writer->discard();
  }

private:
  bool fail(const std::string &error) {
    std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
    discard();
    return false;
  }
  std::vector<std::unique_ptr<IndexedDatasetWriter>> writers_;
  std::vector<std::string> prefixes_;
};

/// Tokenizes `items` on the workers, who take kItemsPerTake at a time,
/// while `meanwhile` runs on this thread.
template <typename Meanwhile>
void tokenizeBatch(const std::vector<Item> &items, InputFormat format,
                   const PreprocessOptions &options, const DocumentTokenizer &tokenizer,
                   std::vector<BpeCache> &caches, std::vector<Tokenized> &results,
                   Meanwhile meanwhile) {
  results.assign(items.size(), Tokenized());
  std::atomic<size_t> next{0};
  auto work = [&](size_t w) {
    for (size_t begin; (begin = next.fetch_add(kItemsPerTake)) < items.size();)
      for (size_t i = begin; i < std::min(items.size(), begin + kItemsPerTake); ++i)
        tokenizeItem(items[i], format, options, tokenizer, caches[w], results[i]);
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < caches.size(); ++w)
    threads.emplace_back(work, w);
  meanwhile();
  for (std::thread &t : threads)
    t.join();
}

} // namespace

bool loadTokenizer(const TokenizerOptions &options, DocumentTokenizer &tokenizer) {
  std::string error;
  if (tokenizer.load(options, error))
    return true;
  std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
  return false;
}

int runPreprocess(const PreprocessOptions &options) {
  std::vector<std::string> files;
  std::string error;
  if (!expandInputs(options.inputs, files, error)) {
    std::fprintf(stderr, "mt-data: error: --input: %s\n", error.c_str());
    return 1;
  }
  std::vector<InputFormat> formats(files.size());
  uint64_t totalBytes = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    if (!inputFormatOf(files[f], options, formats[f]))
      return 1;
    struct stat st;
    if (stat(files[f].c_str(), &st) == 0)
      totalBytes += static_cast<uint64_t>(st.st_size);
  }
  for (size_t i = 0; i < options.jsonKeys.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (options.jsonKeys[i] == options.jsonKeys[j]) {
        std::fprintf(stderr, "mt-data: error: --json-keys lists \"%s\" twice\n",
                     options.jsonKeys[i].c_str());
        return 1;
      }

  DocumentTokenizer tokenizer;
  if (!loadTokenizer(options.tokenizer, tokenizer))
    return 1;
  TokenDType dtype = optimalTokenDType(tokenizer.vocabSize());
  Outputs outputs;
  if (!outputs.open(options, dtype))
    return 1;

  const size_t workers = static_cast<size_t>(options.workers);
  std::vector<BpeCache> caches(workers);
  std::vector<Item> items, nextItems;
  std::vector<Tokenized> results;
  Progress progress(totalBytes, /*bar=*/true);
  uint64_t filesDone = 0, textBytes = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    ItemReader reader;
    if (!reader.open(files[f], formats[f], error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      outputs.discard();
      return 1;
    }
    const size_t batch = workers * kItemsPerWorker;
    if (!reader.read(batch, items, textBytes)) {
      outputs.discard();
      return 1;
    }
    while (!items.empty()) {
      bool readOk = true;
      tokenizeBatch(items, formats[f], options, tokenizer, caches, results,
                    [&] { readOk = reader.read(batch, nextItems, textBytes); });
      if (!outputs.write(files[f], items, results, options.splitSentences) || !readOk) {
        outputs.discard();
        return 1;
      }
      std::swap(items, nextItems);
      progress.update(filesDone + reader.fileBytesRead(), textBytes);
    }
    struct stat st;
    filesDone += stat(files[f].c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    progress.update(filesDone, textBytes);
  }
  if (!outputs.finish(options, dtype))
    return 1;
  progress.finish(options.workers);
  return 0;
}

} // namespace mt::data_tool
