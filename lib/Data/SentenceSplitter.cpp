//===- SentenceSplitter.cpp - a document's text into sentences -------------===//
#include "mt/Data/SentenceSplitter.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace mt {

namespace {

/// Words after which a period is part of the word, lower-cased, without it.
constexpr std::array<std::string_view, 28> kAbbreviations = {
    "mr",  "mrs", "ms",  "dr",  "prof", "sr",  "jr",   "st",   "vs", "etc",
    "e.g", "i.e", "cf",  "al",  "inc",  "ltd", "co",   "corp", "no", "vol",
    "fig", "u.s", "u.k", "jan", "feb",  "aug", "sept", "oct"};

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isClosing(char c) { return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}'; }

/// Whether a sentence can start with this byte.
bool canStart(unsigned char c) {
  return std::isupper(c) || std::isdigit(c) || c == '"' || c == '\'' || c == '(' || c == '[' ||
         c >= 0x80;
}

/// The word ending right before `end` (a period's position), lower-cased.
std::string wordBefore(std::string_view text, size_t end) {
  size_t begin = end;
  while (begin > 0 && !isSpace(text[begin - 1]) && text[begin - 1] != '(' && text[begin - 1] != '"')
    --begin;
  std::string word(text.substr(begin, end - begin));
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return word;
}

/// Whether the period at `dot` belongs to an abbreviation or an initial.
bool abbreviationDot(std::string_view text, size_t dot) {
  std::string word = wordBefore(text, dot);
  if (word.size() == 1 && std::isalpha(static_cast<unsigned char>(word[0])))
    return true;
  return std::find(kAbbreviations.begin(), kAbbreviations.end(), word) != kAbbreviations.end();
}

/// Whether [i, j) (white space after a sentence end) holds a blank line.
bool blankLine(std::string_view text, size_t i, size_t j) {
  return std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                    text.begin() + static_cast<std::ptrdiff_t>(j), '\n') >= 2;
}

void addTrimmed(std::string_view text, size_t begin, size_t end,
                std::vector<std::string_view> &out) {
  while (begin < end && isSpace(text[begin]))
    ++begin;
  while (end > begin && isSpace(text[end - 1]))
    --end;
  if (end > begin)
    out.push_back(text.substr(begin, end - begin));
}

} // namespace

std::vector<std::string_view> splitSentences(std::string_view text) {
  std::vector<std::string_view> sentences;
  size_t start = 0, i = 0;
  while (i < text.size()) {
    char c = text[i];
    bool terminal = c == '.' || c == '!' || c == '?';
    if (!terminal && c != '\n') {
      ++i;
      continue;
    }
    size_t end = i + 1; // past the terminal and its closing marks
    if (terminal) {
      while (end < text.size() && (text[end] == '.' || text[end] == '!' || text[end] == '?'))
        ++end;
      while (end < text.size() && isClosing(text[end]))
        ++end;
    }
    size_t next = end;
    while (next < text.size() && isSpace(text[next]))
      ++next;
    bool split = false;
    if (c == '\n')
      split = blankLine(text, i, next);
    else if (next > end &&
             (next == text.size() || canStart(static_cast<unsigned char>(text[next]))))
      split = !(c == '.' && end == i + 1 && abbreviationDot(text, i)) || blankLine(text, end, next);
    if (split) {
      addTrimmed(text, start, end, sentences);
      start = next;
    }
    i = std::max(next, i + 1);
  }
  addTrimmed(text, start, text.size(), sentences);
  return sentences;
}

} // namespace mt
