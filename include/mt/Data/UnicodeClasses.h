//===- UnicodeClasses.h - the character classes GPT-2 splits on -*- C++ -*-===//
//
// GPT-2's pre-tokenizer regex uses three classes: \p{L} (letters), \p{N}
// (numbers) and \s (white space). These functions answer them for any code
// point from tables generated from Python's `regex` module, the library
// OpenAI's encoder and Megatron-LM evaluate that regex with (see
// lib/Data/gen_unicode_classes.py). They are exact for every code point of
// the module's Unicode version (17.0 when generated); \p{L} and \p{N} are also
// identical to Node 20's /\p{L}/u and /\p{N}/u. Code points assigned in later
// Unicode versions count as neither letters nor numbers until the tables are
// regenerated.
//
// \s is Unicode White_Space: U+0009..U+000D, U+0020, U+0085, U+00A0, U+1680,
// U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. (JavaScript's \s
// differs: it adds U+FEFF and lacks U+0085.)
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_UNICODECLASSES_H
#define MT_DATA_UNICODECLASSES_H

namespace mt::unicode {

/// \p{L}: general categories Lu, Ll, Lt, Lm, Lo.
bool isLetter(char32_t cp);
/// \p{N}: general categories Nd, Nl, No.
bool isNumber(char32_t cp);
/// \s: the White_Space property.
bool isSpace(char32_t cp);

} // namespace mt::unicode

#endif // MT_DATA_UNICODECLASSES_H
