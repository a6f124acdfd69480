//===- Gpt2PreTokenizer.cpp - GPT-2's split of text into words ------------===//
#include "mt/Data/Gpt2PreTokenizer.h"

#include "mt/Data/UnicodeClasses.h"
#include "mt/Data/Utf8.h"

#include <cstdint>

namespace mt {
namespace {

enum class CharClass : uint8_t { Letter, Number, Space, Other };

/// One decoded character: where it starts and what class it is.
struct Char {
  size_t offset;
  char32_t codePoint; // 0xFFFFFFFF for bytes that are not UTF-8
  CharClass cls;
};

std::vector<Char> classify(std::string_view text) {
  std::vector<Char> chars;
  chars.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    utf8::Decoded d = utf8::decodeAt(text, pos);
    Char c{pos, d.valid ? d.codePoint : 0xFFFFFFFFu, CharClass::Other};
    if (d.valid) {
      if (unicode::isLetter(d.codePoint))
        c.cls = CharClass::Letter;
      else if (unicode::isNumber(d.codePoint))
        c.cls = CharClass::Number;
      else if (unicode::isSpace(d.codePoint))
        c.cls = CharClass::Space;
    }
    chars.push_back(c);
    pos += d.length;
  }
  return chars;
}

/// Length in characters of the contraction ('s 't 're 've 'm 'll 'd, lower
/// case only, as in the regex) starting at chars[i], or 0.
size_t contractionAt(const std::vector<Char> &chars, size_t i) {
  auto at = [&](size_t k) -> char32_t { return i + k < chars.size() ? chars[i + k].codePoint : 0; };
  if (at(0) != '\'')
    return 0;
  switch (at(1)) {
  case 's':
  case 't':
  case 'm':
  case 'd':
    return 2;
  case 'r':
  case 'v':
    return at(2) == 'e' ? 3 : 0;
  case 'l':
    return at(2) == 'l' ? 3 : 0;
  default:
    return 0;
  }
}

} // namespace

std::vector<std::string_view> gpt2PreTokenize(std::string_view text) {
  std::vector<Char> chars = classify(text);
  const size_t n = chars.size();
  auto offsetOf = [&](size_t i) { return i < n ? chars[i].offset : text.size(); };
  auto runEnd = [&](size_t i, CharClass cls) {
    while (i < n && chars[i].cls == cls)
      ++i;
    return i;
  };

  std::vector<std::string_view> pieces;
  size_t i = 0;
  while (i < n) {
    size_t end;
    if (size_t len = contractionAt(chars, i)) {
      end = i + len;
    } else if (chars[i].cls != CharClass::Space) {
      // ' ?\p{L}+', ' ?\p{N}+' and ' ?[^\s\p{L}\p{N}]+' without the space.
      end = runEnd(i, chars[i].cls);
    } else if (chars[i].codePoint == ' ' && i + 1 < n && chars[i + 1].cls != CharClass::Space) {
      // The same three with their optional leading space (U+0020 only).
      end = runEnd(i + 1, chars[i + 1].cls);
    } else {
      // '\s+(?!\S)' backs off one character when non-space follows the run,
      // leaving that character to lead the next word; a single space before
      // non-space falls through to '\s+'.
      size_t runStop = runEnd(i, CharClass::Space);
      end = (runStop < n && runStop - i > 1) ? runStop - 1 : runStop;
    }
    pieces.push_back(text.substr(offsetOf(i), offsetOf(end) - offsetOf(i)));
    i = end;
  }
  return pieces;
}

} // namespace mt
