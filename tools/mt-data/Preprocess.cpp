//===- Preprocess.cpp - a corpus into Megatron's indexed dataset -----------===//
//
// Streams the input: a batch of lines (or paragraphs) is read, tokenized by
// the workers in contiguous slices, and written in input order before the
// next batch is read. So memory holds one batch plus the index arrays, and
// the output is the same for any number of workers.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/IndexedDataset.h"
#include "mt/Data/Json.h"
#include "mt/Data/SentenceSplitter.h"
#include "mt/Data/TextDocuments.h"

#include <cstdio>
#include <memory>
#include <thread>

namespace mt::data_tool {
namespace {

enum class InputFormat { JsonLines, Text };

/// Items each worker tokenizes per batch.
constexpr size_t kItemsPerWorker = 256;

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

} // namespace

bool loadTokenizer(const TokenizerOptions &options, DocumentTokenizer &tokenizer) {
  std::string error;
  if (tokenizer.load(options, error))
    return true;
  std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
  return false;
}

/// The input's format from its name, and the keys checked against it;
/// false after printing what is wrong.
bool inputFormatOf(const PreprocessOptions &options, InputFormat &format) {
  if (endsWith(options.input, ".jsonl") || endsWith(options.input, ".json")) {
    format = InputFormat::JsonLines;
  } else if (endsWith(options.input, ".txt")) {
    format = InputFormat::Text;
    if (options.jsonKeys.size() != 1) {
      std::fprintf(stderr,
                   "mt-data: error: a .txt input has one text per document; give one key "
                   "(it names the output), not %zu\n",
                   options.jsonKeys.size());
      return false;
    }
  } else {
    std::fprintf(stderr,
                 "mt-data: error: cannot tell the format of '%s': name JSON lines .jsonl or "
                 ".json, plain text .txt\n",
                 options.input.c_str());
    return false;
  }
  for (size_t i = 0; i < options.jsonKeys.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (options.jsonKeys[i] == options.jsonKeys[j]) {
        std::fprintf(stderr, "mt-data: error: --json-keys lists \"%s\" twice\n",
                     options.jsonKeys[i].c_str());
        return false;
      }

  return true;
}

/// Tokenizes a batch: worker w takes a contiguous slice.
void tokenizeBatch(const std::vector<Item> &items, InputFormat format,
                   const PreprocessOptions &options, const DocumentTokenizer &tokenizer,
                   std::vector<BpeCache> &caches, std::vector<Tokenized> &results) {
  size_t workers = caches.size();
  results.assign(items.size(), Tokenized());
  size_t slice = (items.size() + workers - 1) / workers;
  auto work = [&](size_t w) {
    for (size_t i = w * slice; i < std::min(items.size(), (w + 1) * slice); ++i)
      tokenizeItem(items[i], format, options, tokenizer, caches[w], results[i]);
  };
  if (workers == 1 || items.size() <= 1) {
    work(0); // the one slice is everything
  } else {
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w)
      threads.emplace_back(work, w);
    for (std::thread &t : threads)
      t.join();
  }
}

int runPreprocess(const PreprocessOptions &options) {
  InputFormat format;
  if (!inputFormatOf(options, format))
    return 1;

  DocumentTokenizer tokenizer;
  if (!loadTokenizer(options.tokenizer, tokenizer))
    return 1;

  std::string error;
  LineReader lines;
  ParagraphReader paragraphs;
  bool opened = format == InputFormat::JsonLines ? lines.open(options.input, error)
                                                 : paragraphs.open(options.input, error);
  if (!opened) {
    std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
    return 1;
  }

  // Megatron's names: PREFIX_<key>_document.{bin,idx}.
  std::vector<std::unique_ptr<IndexedDatasetWriter>> writers;
  std::vector<std::string> prefixes;
  auto discardAll = [&] {
    for (auto &writer : writers)
      writer->discard();
  };
  for (const std::string &key : options.jsonKeys) {
    prefixes.push_back(options.outputPrefix + "_" + key + "_document");
    writers.push_back(std::make_unique<IndexedDatasetWriter>());
    if (!writers.back()->open(prefixes.back(), optimalTokenDType(tokenizer.vocabSize()), error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      discardAll();
      return 1;
    }
  }

  const size_t workers = static_cast<size_t>(options.workers);
  std::vector<BpeCache> caches(workers);
  std::vector<Item> items;
  std::vector<Tokenized> results;
  bool more = true;
  while (more) {
    // Read a batch.
    items.clear();
    while (items.size() < workers * kItemsPerWorker) {
      Item item;
      bool got = format == InputFormat::JsonLines ? lines.next(item.text, error)
                                                  : paragraphs.next(item.text, item.line, error);
      if (!error.empty()) {
        if (format == InputFormat::Text && paragraphs.errorLine())
          std::fprintf(stderr, "%s:%lld:%zu: error: %s\n", options.input.c_str(),
                       static_cast<long long>(paragraphs.errorLine()), paragraphs.errorColumn(),
                       error.c_str());
        else
          std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
        discardAll();
        return 1;
      }
      if (!got) {
        more = false;
        break;
      }
      if (format == InputFormat::JsonLines)
        item.line = lines.lineNumber();
      items.push_back(std::move(item));
    }

    tokenizeBatch(items, format, options, tokenizer, caches, results);

    // Write it in order; the first bad item ends the run.
    for (size_t i = 0; i < items.size(); ++i) {
      const Tokenized &r = results[i];
      if (!r.error.empty()) {
        std::string where = options.input + ":" + std::to_string(items[i].line);
        if (r.column)
          where += ":" + std::to_string(r.column);
        std::fprintf(stderr, "%s: error: %s\n", where.c_str(), r.error.c_str());
        discardAll();
        return 1;
      }
      for (size_t k = 0; k < writers.size(); ++k) {
        const std::vector<int32_t> &doc = r.documents[k];
        if (!writeDocument(*writers[k], doc, r.sentenceEnds[k], options.splitSentences, error)) {
          std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
          discardAll();
          return 1;
        }
      }
    }
  }

  for (size_t k = 0; k < writers.size(); ++k) {
    if (!writers[k]->finish(error)) {
      std::fprintf(stderr, "mt-data: error: %s\n", error.c_str());
      discardAll();
      return 1;
    }
    std::printf("%s: %lld documents, %lld tokens (%s) -> %s, %s\n", options.jsonKeys[k].c_str(),
                static_cast<long long>(writers[k]->numDocuments()),
                static_cast<long long>(writers[k]->numTokens()),
                tokenDTypeName(optimalTokenDType(tokenizer.vocabSize())),
                dataPath(prefixes[k]).c_str(), indexPath(prefixes[k]).c_str());
  }
  return 0;
}

} // namespace mt::data_tool
