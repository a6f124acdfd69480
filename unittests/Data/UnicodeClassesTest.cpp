//===- UnicodeClassesTest.cpp - \p{L}, \p{N}, \s -----------------------------===//
#include "mt/Data/UnicodeClasses.h"

#include <gtest/gtest.h>

using namespace mt::unicode;

namespace {

enum Class { L, N, S, O };

Class classOf(char32_t cp) {
  int hits = isLetter(cp) + isNumber(cp) + isSpace(cp);
  EXPECT_LE(hits, 1) << "classes overlap at " << static_cast<unsigned>(cp);
  return isLetter(cp) ? L : isNumber(cp) ? N : isSpace(cp) ? S : O;
}

// Expected classes are those of Python's `regex` module (and Unicode's
// general categories) for these code points.
TEST(UnicodeClasses, ScriptsUsedInPractice) {
  struct Case {
    char32_t cp;
    Class expected;
  } cases[] = {
      {U'A', L},    {U'z', L},     {0xE9, L},    {0xDF, L},    {0xAA, L}, // Latin, ª
      {0x0142, L},  {0x01C5, L},                                          // ł, Lt digraph
      {0x03A9, L},  {0x03B1, L},   {0x0416, L},  {0x0436, L},             // Greek, Cyrillic
      {0x05D0, L},  {0x0627, L},   {0x0905, L},  {0x0E01, L}, // Hebrew, Arabic, Devanagari, Thai
      {0x4E00, L},  {0x9FFF, L},   {0x3042, L},  {0x30AB, L},  {0xAC00, L}, // CJK, kana, Hangul
      {0x20000, L}, {0x02B0, L},   {0x3005, L},                             // CJK ext B, Lm
      {U'0', N},    {U'9', N},     {0xB2, N},    {0xBD, N},    {0x216B, N}, // ² ½ Ⅻ
      {0xFF11, N},  {0x0663, N},   {0x0967, N},  {0x1D7CE, N}, // fullwidth, Arabic-Indic,
                                                               // Devanagari, math
      {U' ', S},    {U'\t', S},    {U'\n', S},   {0x0B, S},    {0x0C, S},   {U'\r', S},
      {0x85, S},    {0xA0, S},     {0x1680, S},  {0x2000, S},  {0x200A, S}, {0x2028, S},
      {0x2029, S},  {0x202F, S},   {0x205F, S},  {0x3000, S},  {0xFEFF, O}, {0x200B, O},
      {0x1C, O},    {0x1F, O},                                              // not White_Space
      {U'!', O},    {U'\'', O},    {U'_', O},    {0x2014, O},  {0x2026, O}, // punctuation
      {0x20AC, O},  {0x0301, O},   {0x1F600, O}, {0x7F, O},    {0x00, O},   // €, combining mark,
                                                                            // emoji
      {0xE000, O},  {0x10FFFF, O},
  };
  for (const Case &c : cases)
    EXPECT_EQ(classOf(c.cp), c.expected) << "U+" << std::hex << static_cast<unsigned>(c.cp);
}

TEST(UnicodeClasses, AsciiFastPathAgreesWithDefinition) {
  for (char32_t cp = 0; cp < 0x80; ++cp) {
    bool letter = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    bool number = cp >= '0' && cp <= '9';
    bool space = cp == ' ' || (cp >= 9 && cp <= 13);
    EXPECT_EQ(isLetter(cp), letter) << cp;
    EXPECT_EQ(isNumber(cp), number) << cp;
    EXPECT_EQ(isSpace(cp), space) << cp;
  }
}

} // namespace
