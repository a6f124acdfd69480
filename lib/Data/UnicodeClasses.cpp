//===- UnicodeClasses.cpp - \p{L}, \p{N} and \s by table lookup ------------===//
#include "mt/Data/UnicodeClasses.h"

#include <algorithm>
#include <iterator>

namespace mt::unicode {
namespace {

struct CodePointRange {
  char32_t first, last;
};

#include "UnicodeClasses.inc"

template <size_t N> bool inRanges(const CodePointRange (&ranges)[N], char32_t cp) {
  // The first range whose end is >= cp is the only one that can hold it.
  const CodePointRange *it = std::lower_bound(
      std::begin(ranges), std::end(ranges), cp,
      [](const CodePointRange &range, char32_t value) { return range.last < value; });
  return it != std::end(ranges) && it->first <= cp;
}

} // namespace

bool isLetter(char32_t cp) {
  if (cp < 0x80)
    return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return inRanges(kLetterRanges, cp);
}

bool isNumber(char32_t cp) {
  if (cp < 0x80)
    return cp >= '0' && cp <= '9';
  return inRanges(kNumberRanges, cp);
}

bool isSpace(char32_t cp) {
  if (cp < 0x80)
    return cp == ' ' || (cp >= '\t' && cp <= '\r');
  return inRanges(kSpaceRanges, cp);
}

} // namespace mt::unicode
