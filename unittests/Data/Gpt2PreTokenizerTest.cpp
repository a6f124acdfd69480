//===- Gpt2PreTokenizerTest.cpp - GPT-2's regex split -----------------------===//
#include "mt/Data/Gpt2PreTokenizer.h"

#include <gtest/gtest.h>

using mt::gpt2PreTokenize;
using Pieces = std::vector<std::string>;

namespace {

Pieces split(std::string_view text) {
  Pieces out;
  for (std::string_view piece : gpt2PreTokenize(text))
    out.emplace_back(piece);
  return out;
}

// Each expectation is Python `regex`.findall of GPT-2's pattern.
TEST(Gpt2PreTokenizer, WordsTakeTheirLeadingSpace) {
  EXPECT_EQ(split("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(split("1234 56.7"), (Pieces{"1234", " 56", ".", "7"}));
  EXPECT_EQ(split(" !!! ?"), (Pieces{" !!!", " ?"}));
}

TEST(Gpt2PreTokenizer, ContractionsAreLowerCaseOnly) {
  EXPECT_EQ(split("I'm here, they'll've"),
            (Pieces{"I", "'m", " here", ",", " they", "'ll", "'ve"}));
  EXPECT_EQ(split("don't 'S'll"), (Pieces{"don", "'t", " '", "S", "'ll"}));
}

TEST(Gpt2PreTokenizer, WhiteSpaceLeavesItsLastCharacterToTheNextWord) {
  EXPECT_EQ(split("  hi"), (Pieces{" ", " hi"}));
  EXPECT_EQ(split("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(split("x  \n y"), (Pieces{"x", "  \n", " y"}));
  EXPECT_EQ(split("end   "), (Pieces{"end", "   "}));
  EXPECT_EQ(split("tab\tsep"), (Pieces{"tab", "\t", "sep"}));
  // Only U+0020 joins a word; other white space stands alone.
  EXPECT_EQ(split(" \t\u00a0x"), (Pieces{" \t", "\u00a0", "x"}));
  EXPECT_EQ(split("a \u3000b"), (Pieces{"a", " ", "\u3000", "b"}));
}

TEST(Gpt2PreTokenizer, UnicodeClasses) {
  EXPECT_EQ(split("\u03a9=3\u00b2, \u00bd \u216b"),
            (Pieces{"\u03a9", "=", "3\u00b2", ",", " \u00bd", " \u216b"}));
  EXPECT_EQ(split("日本語のテキスト"), (Pieces{"日本語のテキスト"}));
  EXPECT_EQ(split("emoji😀!"), (Pieces{"emoji", "😀!"}));
  EXPECT_EQ(split("\u0085a"), (Pieces{"\u0085", "a"}));
}

TEST(Gpt2PreTokenizer, PiecesCoverEveryByteEvenWhenNotUtf8) {
  std::string text = "ok \xFF\xFE bad\xE2\x82 end";
  std::string joined;
  for (std::string_view piece : gpt2PreTokenize(text))
    joined += piece;
  EXPECT_EQ(joined, text);
  EXPECT_EQ(split("a\xFF"
                  "b"),
            (Pieces{"a", "\xFF", "b"}));
  EXPECT_TRUE(split("").empty());
}

} // namespace
