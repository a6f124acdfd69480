//===- Utf8.h - decoding and checking UTF-8 --------------------*- C++ -*-===//
//
// The data pipeline reads text as bytes. These helpers decode it one code
// point at a time and say precisely where it stops being UTF-8, using the
// Unicode "maximal subpart" rule for invalid bytes (the rule Python's
// errors="replace" and the WHATWG TextDecoder follow), so a decoder that
// replaces bad bytes with U+FFFD matches theirs byte for byte.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_UTF8_H
#define MT_DATA_UTF8_H

#include <cstddef>
#include <string>
#include <string_view>

namespace mt::utf8 {

/// One step of decoding.
struct Decoded {
  /// The code point; meaningless when !valid.
  char32_t codePoint = 0;
  /// Bytes consumed: the sequence, or for invalid input its maximal subpart
  /// (at least 1), so decoding always makes progress.
  size_t length = 0;
  bool valid = false;
};

/// Decodes the sequence starting at `text[pos]` (pos < text.size()).
/// Overlong forms, surrogates (U+D800..U+DFFF) and values above U+10FFFF are
/// invalid, as are sequences cut short by the end of `text`.
Decoded decodeAt(std::string_view text, size_t pos);

/// Appends `cp` (<= U+10FFFF, not a surrogate) encoded as UTF-8.
void append(std::string &out, char32_t cp);

/// Byte offset of the first invalid sequence, or std::string_view::npos.
size_t findInvalid(std::string_view text);

/// `bytes` with every maximal invalid subpart replaced by U+FFFD.
std::string replaceInvalid(std::string_view bytes);

/// "U+00E9": how error messages name a code point.
std::string codePointName(char32_t cp);

} // namespace mt::utf8

#endif // MT_DATA_UTF8_H
