//===- JsonTest.cpp - JSON strings and JSON lines ---------------------------===//
#include "mt/Data/Json.h"

#include <gtest/gtest.h>

using namespace mt;

namespace {

/// The "text" field of `line`, or "error: <column>: <message>".
std::string text(std::string_view line) {
  std::vector<std::string> values;
  std::string error;
  size_t column = 0;
  if (!extractStringFields(line, {"text"}, values, error, column))
    return "error: " + std::to_string(column) + ": " + error;
  return values[0];
}

TEST(Json, DecodesEveryEscape) {
  EXPECT_EQ(text(R"({"text": "a\"b\\c\/d\b\f\n\r\t"})"), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(text(R"({"text": "caf\u00e9 \u20AC"})"), "caf\xC3\xA9 \xE2\x82\xAC");
  EXPECT_EQ(text(R"({"text": "\ud83d\ude00"})"), "\xF0\x9F\x98\x80"); // surrogate pair
  EXPECT_EQ(text(R"({"text": "\u0000"})"), std::string("\0", 1));
  EXPECT_EQ(text("{\"text\": \"raw UTF-8: \xC3\xA9\"}"), "raw UTF-8: \xC3\xA9");
}

TEST(Json, RejectsBadStrings) {
  EXPECT_EQ(text(R"({"text": "\ud83d"})"), "error: 11: unpaired high surrogate \\uD83D");
  EXPECT_EQ(text(R"({"text": "\ud83d\u0041"})"),
            "error: 17: high surrogate \\uD83D is followed by \\u0041, not a low surrogate");
  EXPECT_EQ(text(R"({"text": "\ude00"})"), "error: 11: unpaired low surrogate \\uDE00");
  EXPECT_EQ(text(R"({"text": "\x"})"), "error: 11: invalid escape 'x' after '\\'");
  EXPECT_EQ(text(R"({"text": "\u12G4"})"), "error: 15: \\u escape needs 4 hex digits, found 'G'");
  EXPECT_EQ(text("{\"text\": \"tab\there\"}"),
            "error: 14: raw control character byte 0x09 in a string (write it as an escape)");
  EXPECT_EQ(text("{\"text\": \"bad \xFF\"}"), "error: 15: invalid UTF-8 (byte 0xFF)");
  EXPECT_EQ(text(R"({"text": "open)"), "error: 15: unterminated string");
}

TEST(Json, ChecksTheWholeLine) {
  EXPECT_EQ(text(R"({"id": [1, -2.5e+3, {"x": null}], "ok": true, "text": "t", "f": NaN})"), "t");
  EXPECT_EQ(text(R"({"text": "t"} x)"), "error: 15: unexpected 'x' after the JSON value");
  EXPECT_EQ(text(R"({"text": "t",})"), "error: 14: expected a string key, found '}'");
  EXPECT_EQ(text(R"({"n": 01, "text": "t"})"), "error: 8: numbers may not have leading zeros");
  EXPECT_EQ(text(R"({"n": 1., "text": "t"})"), "error: 9: expected a digit after '.'");
  EXPECT_EQ(text(R"({"n": tru, "text": "t"})"), "error: 7: expected a value, found 't'");
  EXPECT_EQ(text(""), "error: 1: expected '{' (a JSON object), found end of input");
  EXPECT_EQ(text(R"(["text"])"), "error: 1: expected '{' (a JSON object), found '['");
}

TEST(Json, KeysLikePythonsJsonLoads) {
  EXPECT_EQ(text(R"({"text": "first", "text": "last"})"), "last");
  EXPECT_EQ(text(R"({"txt": "x"})"), "error: 0: no key \"text\" in the object");
  EXPECT_EQ(text(R"({"text": 42})"), "error: 10: the value of \"text\" is not a string");
  EXPECT_EQ(text(R"({"text": ["a", "b"]})"), "error: 10: the value of \"text\" is not a string");
}

TEST(Json, SeveralKeysInTheirOrder) {
  std::vector<std::string> values;
  std::string error;
  size_t column;
  ASSERT_TRUE(extractStringFields(R"({"b": "2", "a": "1"})", {"a", "b"}, values, error, column));
  EXPECT_EQ(values, (std::vector<std::string>{"1", "2"}));
}

TEST(Json, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::string result = text(deep);
  EXPECT_NE(result.find("nesting deeper than 512"), std::string::npos) << result;
}

TEST(Json, IntegersForVocabularies) {
  JsonParser ok("  2147483647 ");
  int64_t value = 0;
  EXPECT_TRUE(ok.parseInteger(value, 0, 2147483647));
  EXPECT_EQ(value, 2147483647);
  JsonParser tooBig("2147483648");
  EXPECT_FALSE(tooBig.parseInteger(value, 0, 2147483647));
  EXPECT_EQ(tooBig.error(), "column 1: integer 2147483648 is outside [0, 2147483647]");
  JsonParser huge("99999999999999999999");
  EXPECT_FALSE(huge.parseInteger(value, 0, 10));
  EXPECT_EQ(huge.error(), "column 1: integer out of range");
  JsonParser fraction("1.5");
  EXPECT_FALSE(fraction.parseInteger(value, 0, 10));
}

TEST(Json, QuoteEscapes) { EXPECT_EQ(jsonQuote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\""); }

} // namespace
