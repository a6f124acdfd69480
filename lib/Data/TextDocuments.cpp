//===- TextDocuments.cpp - documents from text files, streamed -------------===//
#include "mt/Data/TextDocuments.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/Utf8.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mt {

bool LineReader::open(const std::string &path, std::string &error) {
  path_ = path;
  lineNumber_ = 0;
  begin_ = end_ = 0;
  atEnd_ = false;
  buffer_.resize(1 << 20);
  in_ = openInputStream(path, error);
  return in_ != nullptr;
}

bool LineReader::next(std::string &line, std::string &error) {
  line.clear();
  if (!in_)
    return false;
  // Lines keep NUL bytes and have no length limit: the buffer grows.
  size_t searched = begin_;
  for (;;) {
    const char *newline =
        static_cast<const char *>(std::memchr(buffer_.data() + searched, '\n', end_ - searched));
    if (newline) {
      size_t at = static_cast<size_t>(newline - buffer_.data());
      line.assign(buffer_.data() + begin_, at - begin_);
      begin_ = at + 1;
      ++lineNumber_;
      return true;
    }
    if (atEnd_) {
      if (begin_ == end_)
        return false;                                      // end of file
      line.assign(buffer_.data() + begin_, end_ - begin_); // the last line may lack its "\n"
      begin_ = end_;
      ++lineNumber_;
      return true;
    }
    // Keep the partial line at the front, then read more behind it.
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    searched = end_;
    if (end_ == buffer_.size())
      buffer_.resize(buffer_.size() * 2);
    size_t got = 0;
    if (!in_->read(buffer_.data() + end_, buffer_.size() - end_, got, error))
      return false;
    end_ += got;
    atEnd_ = got == 0;
  }
}

bool ParagraphReader::open(const std::string &path, std::string &error) {
  return lines_.open(path, error);
}

bool ParagraphReader::next(std::string &text, int64_t &firstLine, std::string &error) {
  text.clear();
  firstLine = 0;
  std::string line;
  while (lines_.next(line, error)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    size_t bad = utf8::findInvalid(line);
    if (bad != std::string::npos) {
      error = "invalid UTF-8";
      errorLine_ = lines_.lineNumber();
      errorColumn_ = bad + 1;
      return false;
    }
    bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (blank) {
      if (firstLine != 0)
        return true;
      continue;
    }
    if (firstLine == 0)
      firstLine = lines_.lineNumber();
    else
      text += '\n';
    text += line;
  }
  return error.empty() && firstLine != 0;
}

bool tokenizeTextFile(const std::string &path, const Gpt2Tokenizer &tokenizer,
                      std::vector<std::vector<int32_t>> &documents, std::string &error) {
  documents.clear();
  ParagraphReader reader;
  if (!reader.open(path, error))
    return false;
  BpeCache cache;
  std::string text;
  int64_t firstLine;
  error.clear();
  while (reader.next(text, firstLine, error)) {
    documents.push_back(tokenizer.encode(text, &cache));
    documents.back().push_back(tokenizer.endOfText());
  }
  if (!error.empty() && reader.errorLine())
    error = path + ":" + std::to_string(reader.errorLine()) + ":" +
            std::to_string(reader.errorColumn()) + ": " + error;
  return error.empty();
}

} // namespace mt
