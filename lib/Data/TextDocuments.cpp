//===- TextDocuments.cpp - documents from text files, streamed -------------===//
#include "mt/Data/TextDocuments.h"

#include "mt/Data/Gpt2Tokenizer.h"
#include "mt/Data/Utf8.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mt {

LineReader::~LineReader() {
  if (file_)
    std::fclose(file_);
  std::free(buffer_);
}

bool LineReader::open(const std::string &path, std::string &error) {
  path_ = path;
  lineNumber_ = 0;
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool LineReader::next(std::string &line, std::string &error) {
  line.clear();
  if (!file_)
    return false;
  // POSIX getline keeps NUL bytes and has no line length limit.
  errno = 0;
  ssize_t n = ::getline(&buffer_, &capacity_, file_);
  if (n < 0) {
    if (std::ferror(file_)) {
      error = "cannot read '" + path_ + "': " + std::strerror(errno);
      return false;
    }
    return false; // end of file
  }
  size_t length = static_cast<size_t>(n);
  if (length > 0 && buffer_[length - 1] == '\n')
    --length; // the last line may lack its "\n"
  line.assign(buffer_, length);
  ++lineNumber_;
  return true;
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
