//===- Json.h - just enough JSON for vocabularies and JSON lines -*- C++ -*-===//
//
// The data pipeline reads two kinds of JSON: GPT-2's encoder.json (one object
// of string -> integer) and Megatron's JSON lines (one object per line, of
// which a few string fields matter). JsonParser reads one JSON text with the
// grammar of RFC 8259 plus what Python's json.loads also accepts (NaN,
// Infinity, -Infinity), since Megatron's preprocessing reads its input with
// json.loads. Strings are decoded to UTF-8 with every escape, including
// \uXXXX surrogate pairs; unpaired surrogates, raw control characters and
// bytes that are not UTF-8 are errors. Errors name the byte column (from 1).
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_JSON_H
#define MT_DATA_JSON_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mt {

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  /// Reads an object; for each member calls `onMember(key)`, which must read
  /// the value with one of the parse or skip calls below and return whether
  /// that succeeded.
  bool parseObject(const std::function<bool(const std::string &key)> &onMember);
  /// Reads a string value into `out` (UTF-8).
  bool parseString(std::string &out);
  /// Reads an integer value (no fraction or exponent) in [min, max].
  bool parseInteger(int64_t &out, int64_t min, int64_t max);
  /// Reads and checks any value, keeping nothing.
  bool skipValue();
  /// Checks that only white space is left.
  bool expectEnd();
  /// The next byte that is not white space, or '\0' at the end.
  char peek();
  /// Records `message` as an error at the next non-white-space byte; false.
  bool failHere(const std::string &message);

  /// What went wrong, as "column N: message".
  std::string error() const {
    return "column " + std::to_string(errorColumn_) + ": " + errorMessage_;
  }
  /// The 1-based byte column of the first error, and its message.
  size_t errorColumn() const { return errorColumn_; }
  const std::string &errorMessage() const { return errorMessage_; }
  /// The byte offset reached.
  size_t offset() const { return pos_; }

  /// Deepest nesting of arrays and objects accepted (deeper is an error,
  /// never a stack overflow).
  static constexpr int kMaxDepth = 512;

private:
  bool fail(const std::string &message);
  bool failAt(size_t pos, const std::string &message);
  void skipWhitespace();
  bool expect(char c, const char *what);
  bool parseValue(int depth);
  bool parseObjectAt(int depth, const std::function<bool(const std::string &key)> &onMember);
  bool parseArray(int depth);
  bool parseNumber();
  bool parseLiteral(std::string_view word);
  bool parseHex4(uint32_t &out);

  std::string_view text_;
  size_t pos_ = 0;
  size_t errorColumn_ = 0; // 0 until an error
  std::string errorMessage_;
};

/// The string values of `keys` in the JSON object `line`, in the order of
/// `keys`. The whole line is checked. A key given twice takes its last value,
/// as Python's json.loads does. Missing keys and values that are not strings
/// are errors. On error, `errorColumn` is the 1-based byte column, or 0 when
/// the error is not at one place (a missing key).
bool extractStringFields(std::string_view line, const std::vector<std::string> &keys,
                         std::vector<std::string> &values, std::string &error, size_t &errorColumn);

/// `text` as a JSON string literal, quotes included: how error messages show
/// strings that may hold quotes or control characters.
std::string jsonQuote(std::string_view text);

} // namespace mt

#endif // MT_DATA_JSON_H
