//===- Utf8Test.cpp - UTF-8 decoding and replacement -----------------------===//
#include "mt/Data/Utf8.h"

#include <gtest/gtest.h>

using namespace mt;

namespace {

TEST(Utf8, DecodesOneToFourByteSequences) {
  std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"; // a é € 😀
  utf8::Decoded a = utf8::decodeAt(text, 0), e = utf8::decodeAt(text, 1),
                euro = utf8::decodeAt(text, 3), smile = utf8::decodeAt(text, 6);
  EXPECT_TRUE(a.valid && e.valid && euro.valid && smile.valid);
  EXPECT_EQ(a.codePoint, U'a');
  EXPECT_EQ(e.codePoint, 0xE9u);
  EXPECT_EQ(e.length, 2u);
  EXPECT_EQ(euro.codePoint, 0x20ACu);
  EXPECT_EQ(euro.length, 3u);
  EXPECT_EQ(smile.codePoint, 0x1F600u);
  EXPECT_EQ(smile.length, 4u);
  EXPECT_EQ(utf8::findInvalid(text), std::string_view::npos);
}

TEST(Utf8, RejectsOverlongsSurrogatesAndOutOfRange) {
  for (std::string bad : {"\xC0\x80", "\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                          "\xF5\x80\x80\x80", "\x80", "\xFF"}) {
    utf8::Decoded d = utf8::decodeAt(bad, 0);
    EXPECT_FALSE(d.valid) << bad;
    EXPECT_EQ(d.length, 1u) << "the lead byte alone is the maximal subpart: " << bad;
  }
}

TEST(Utf8, TruncatedSequenceIsOneMaximalSubpart) {
  utf8::Decoded d = utf8::decodeAt("\xE2\x82", 0);
  EXPECT_FALSE(d.valid);
  EXPECT_EQ(d.length, 2u);
  EXPECT_EQ(utf8::findInvalid("ok\xE2\x82"), 2u);
}

// Expected strings are Python's bytes.decode('utf-8', 'replace').
TEST(Utf8, ReplacesLikePython) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(utf8::replaceInvalid("\xE2\x82"), fffd);
  EXPECT_EQ(utf8::replaceInvalid("\xED\xA0\x80"), fffd + fffd + fffd);
  EXPECT_EQ(utf8::replaceInvalid("\xC0\x80"), fffd + fffd);
  EXPECT_EQ(utf8::replaceInvalid("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);
  EXPECT_EQ(utf8::replaceInvalid("a\xE2\x82\xAC"
                                 "b\xFF"),
            "a\xE2\x82\xAC"
            "b" +
                fffd);
  EXPECT_EQ(utf8::replaceInvalid("\xF0\x9F\x98"), fffd);
}

TEST(Utf8, AppendEncodesEveryLength) {
  for (char32_t cp : {U'\0', U'A', char32_t(0x7FF), char32_t(0x800), char32_t(0xFFFF),
                      char32_t(0x10000), char32_t(0x10FFFF)}) {
    std::string s;
    utf8::append(s, cp);
    utf8::Decoded d = utf8::decodeAt(s, 0);
    EXPECT_TRUE(d.valid);
    EXPECT_EQ(d.codePoint, cp);
    EXPECT_EQ(d.length, s.size());
  }
  EXPECT_EQ(utf8::codePointName(0xE9), "U+00E9");
  EXPECT_EQ(utf8::codePointName(0x1F600), "U+1F600");
}

} // namespace
