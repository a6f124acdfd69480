//===- WordPieceUnicode.h - the Unicode rules BERT's tokenizer follows ----===//
//
// Python 3.11's str.lower(), unicodedata categories and NFD (Unicode 14.0),
// as BERT's Python tokenizer sees them, from tables (WordPieceUnicode.cpp).
// ASCII is done in code.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_DATA_WORDPIECEUNICODE_H
#define MT_LIB_DATA_WORDPIECEUNICODE_H

#include <string>

namespace mt {
namespace wordpiece {

/// Unicode categories Cc/Cf (BERT's "control"), P* and ASCII symbols, CJK ideographs.
bool isControl(char32_t cp);
bool isPunctuation(char32_t cp);
bool isCjk(char32_t cp);
/// `word` lower-cased as str.lower() does (final sigma included), into `out`.
void lowerInto(const std::u32string &word, std::u32string &out);
/// `word` without accents: NFD, then the Mn marks dropped, into `out`.
void stripAccentsInto(const std::u32string &word, std::u32string &out);

} // namespace wordpiece
} // namespace mt

#endif // MT_LIB_DATA_WORDPIECEUNICODE_H
