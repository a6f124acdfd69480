//===- TextDocuments.h - documents from text files, streamed ---*- C++ -*-===//
//
// Two input formats, both read a line at a time so a corpus never has to fit
// in memory:
//   - JSON lines (Megatron's preprocessing input): one JSON object per line;
//     LineReader gives the lines, extractStringFields (Json.h) the text.
//   - plain text: one document per paragraph. Paragraphs are separated by
//     blank lines (empty, or only spaces, tabs and a carriage return); a
//     document is its paragraph's lines joined with "\n", without the
//     separating blank lines. A "\r" before "\n" is dropped, so CRLF and LF
//     files give the same documents. Text must be UTF-8.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_TEXTDOCUMENTS_H
#define MT_DATA_TEXTDOCUMENTS_H

#include "mt/Data/InputStream.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class Gpt2Tokenizer;

/// The lines of a file, without their "\n".
class LineReader {
public:
  /// Opens `path`, decompressing .gz and .zst (InputStream.h).
  bool open(const std::string &path, std::string &error);
  /// The next line; false at the end of the file or on a read error (then
  /// `error` is set).
  bool next(std::string &line, std::string &error);
  /// 1-based number of the line last returned.
  int64_t lineNumber() const { return lineNumber_; }
  const std::string &path() const { return path_; }
  /// Bytes of the file consumed so far (compressed ones when compressed).
  uint64_t fileBytesRead() const { return in_ ? in_->fileBytesRead() : 0; }

private:
  std::unique_ptr<InputStream> in_;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0; // the unread bytes of buffer_
  bool atEnd_ = false;
  std::string path_;
  int64_t lineNumber_ = 0;
};

/// The paragraphs of a plain text file, one at a time.
class ParagraphReader {
public:
  bool open(const std::string &path, std::string &error);
  /// The next paragraph and the number of its first line; false at the end
  /// or on an error (invalid UTF-8, read errors).
  bool next(std::string &text, int64_t &firstLine, std::string &error);
  /// Where the last error is: line (0 for read errors) and byte column.
  int64_t errorLine() const { return errorLine_; }
  size_t errorColumn() const { return errorColumn_; }
  uint64_t fileBytesRead() const { return lines_.fileBytesRead(); }

private:
  LineReader lines_;
  int64_t errorLine_ = 0;
  size_t errorColumn_ = 0;
};

/// Every paragraph of a plain text file, tokenized, each followed by the
/// end-of-text token (as Megatron's --append-eod does). For small corpora;
/// large ones go through mt-data into an indexed dataset.
bool tokenizeTextFile(const std::string &path, const Gpt2Tokenizer &tokenizer,
                      std::vector<std::vector<int32_t>> &documents, std::string &error);

} // namespace mt

#endif // MT_DATA_TEXTDOCUMENTS_H
