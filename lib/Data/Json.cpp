//===- Json.cpp - just enough JSON for vocabularies and JSON lines ---------===//
#include "mt/Data/Json.h"

#include "mt/Data/Utf8.h"

#include <cstdio>

namespace mt {
namespace {

/// How an error message shows the byte at `pos`.
std::string describeAt(std::string_view text, size_t pos) {
  if (pos >= text.size())
    return "end of input";
  unsigned char c = static_cast<unsigned char>(text[pos]);
  char buffer[32];
  if (c >= 0x20 && c < 0x7F)
    std::snprintf(buffer, sizeof(buffer), "'%c'", c);
  else
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02X", c);
  return buffer;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

} // namespace

bool JsonParser::fail(const std::string &message) { return failAt(pos_, message); }

bool JsonParser::failAt(size_t pos, const std::string &message) {
  if (errorColumn_ == 0) { // keep the first, innermost error
    errorColumn_ = pos + 1;
    errorMessage_ = message;
  }
  return false;
}

void JsonParser::skipWhitespace() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
    ++pos_;
}

bool JsonParser::expect(char c, const char *what) {
  skipWhitespace();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return fail(std::string("expected ") + what + ", found " + describeAt(text_, pos_));
}

bool JsonParser::parseObject(const std::function<bool(const std::string &key)> &onMember) {
  return parseObjectAt(0, onMember);
}

bool JsonParser::parseObjectAt(int depth,
                               const std::function<bool(const std::string &key)> &onMember) {
  if (depth >= kMaxDepth)
    return fail("nesting deeper than " + std::to_string(kMaxDepth));
  if (!expect('{', "'{' (a JSON object)"))
    return false;
  skipWhitespace();
  if (pos_ < text_.size() && text_[pos_] == '}') {
    ++pos_;
    return true;
  }
  while (true) {
    skipWhitespace();
    if (pos_ >= text_.size() || text_[pos_] != '"')
      return fail("expected a string key, found " + describeAt(text_, pos_));
    std::string key;
    if (!parseString(key) || !expect(':', "':' after the key"))
      return false;
    if (!onMember(key))
      return fail("bad value for key " + jsonQuote(key));
    skipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    return expect('}', "',' or '}' in the object");
  }
}

bool JsonParser::parseArray(int depth) {
  if (depth >= kMaxDepth)
    return fail("nesting deeper than " + std::to_string(kMaxDepth));
  if (!expect('[', "'['"))
    return false;
  skipWhitespace();
  if (pos_ < text_.size() && text_[pos_] == ']') {
    ++pos_;
    return true;
  }
  while (true) {
    if (!parseValue(depth + 1))
      return false;
    skipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    return expect(']', "',' or ']' in the array");
  }
}

bool JsonParser::parseHex4(uint32_t &out) {
  out = 0;
  for (int k = 0; k < 4; ++k, ++pos_) {
    if (pos_ >= text_.size())
      return fail("\\u escape cut short by the end of input");
    char c = text_[pos_];
    uint32_t digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return fail("\\u escape needs 4 hex digits, found " + describeAt(text_, pos_));
    out = out * 16 + digit;
  }
  return true;
}

bool JsonParser::parseString(std::string &out) {
  out.clear();
  if (!expect('"', "'\"' (a string)"))
    return false;
  while (true) {
    if (pos_ >= text_.size())
      return fail("unterminated string");
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (c < 0x20)
      return fail("raw control character " + describeAt(text_, pos_) +
                  " in a string (write it as an escape)");
    if (c >= 0x80) {
      utf8::Decoded d = utf8::decodeAt(text_, pos_);
      if (!d.valid)
        return fail("invalid UTF-8 (" + describeAt(text_, pos_) + ")");
      out.append(text_.substr(pos_, d.length));
      pos_ += d.length;
      continue;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      ++pos_;
      continue;
    }
    size_t escapeStart = pos_;
    ++pos_;
    if (pos_ >= text_.size())
      return fail("unterminated string");
    char e = text_[pos_++];
    switch (e) {
    case '"':
      out += '"';
      break;
    case '\\':
      out += '\\';
      break;
    case '/':
      out += '/';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'u': {
      uint32_t unit;
      if (!parseHex4(unit))
        return false;
      if (unit >= 0xDC00 && unit <= 0xDFFF)
        return failAt(escapeStart,
                      "unpaired low surrogate \\u" + utf8::codePointName(unit).substr(2));
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        // A high surrogate must be followed by an escaped low one.
        if (pos_ + 1 >= text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u')
          return failAt(escapeStart,
                        "unpaired high surrogate \\u" + utf8::codePointName(unit).substr(2));
        size_t lowStart = pos_;
        pos_ += 2;
        uint32_t low;
        if (!parseHex4(low))
          return false;
        if (low < 0xDC00 || low > 0xDFFF)
          return failAt(lowStart, "high surrogate \\u" + utf8::codePointName(unit).substr(2) +
                                      " is followed by \\u" + utf8::codePointName(low).substr(2) +
                                      ", not a low surrogate");
        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
      }
      utf8::append(out, unit);
      break;
    }
    default:
      return failAt(escapeStart, "invalid escape " + describeAt(text_, pos_ - 1) + " after '\\'");
    }
  }
}

bool JsonParser::parseNumber() {
  size_t start = pos_;
  if (pos_ < text_.size() && text_[pos_] == '-')
    ++pos_;
  if (text_.substr(pos_, 8) == "Infinity") {
    pos_ += 8;
    return true;
  }
  if (pos_ >= text_.size() || !isDigit(text_[pos_]))
    return failAt(start, "expected a value, found " + describeAt(text_, start));
  if (text_[pos_] == '0') {
    ++pos_;
    if (pos_ < text_.size() && isDigit(text_[pos_]))
      return fail("numbers may not have leading zeros");
  } else {
    while (pos_ < text_.size() && isDigit(text_[pos_]))
      ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (pos_ >= text_.size() || !isDigit(text_[pos_]))
      return fail("expected a digit after '.'");
    while (pos_ < text_.size() && isDigit(text_[pos_]))
      ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    if (pos_ >= text_.size() || !isDigit(text_[pos_]))
      return fail("expected a digit in the exponent");
    while (pos_ < text_.size() && isDigit(text_[pos_]))
      ++pos_;
  }
  return true;
}

bool JsonParser::parseLiteral(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word)
    return fail("expected a value, found " + describeAt(text_, pos_));
  pos_ += word.size();
  return true;
}

bool JsonParser::parseValue(int depth) {
  skipWhitespace();
  if (pos_ >= text_.size())
    return fail("expected a value, found end of input");
  switch (text_[pos_]) {
  case '{':
    return parseObjectAt(depth, [&](const std::string &) { return parseValue(depth + 1); });
  case '[':
    return parseArray(depth);
  case '"': {
    std::string ignored;
    return parseString(ignored);
  }
  case 't':
    return parseLiteral("true");
  case 'f':
    return parseLiteral("false");
  case 'n':
    return parseLiteral("null");
  case 'N':
    return parseLiteral("NaN");
  case 'I':
    return parseLiteral("Infinity");
  default:
    return parseNumber();
  }
}

bool JsonParser::skipValue() { return parseValue(0); }

bool JsonParser::parseInteger(int64_t &out, int64_t min, int64_t max) {
  skipWhitespace();
  size_t start = pos_;
  bool negative = pos_ < text_.size() && text_[pos_] == '-';
  if (negative)
    ++pos_;
  if (pos_ >= text_.size() || !isDigit(text_[pos_]))
    return failAt(start, "expected an integer, found " + describeAt(text_, start));
  // Accumulate as a negative number so INT64_MIN fits; stop on overflow.
  int64_t value = 0;
  while (pos_ < text_.size() && isDigit(text_[pos_])) {
    int digit = text_[pos_] - '0';
    if (value < (INT64_MIN + digit) / 10)
      return failAt(start, "integer out of range");
    value = value * 10 - digit;
    ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
    return failAt(start, "expected an integer, found a fraction or exponent");
  if (text_[start + (negative ? 1 : 0)] == '0' && pos_ - start > (negative ? 2u : 1u))
    return failAt(start, "numbers may not have leading zeros");
  if (!negative && value == INT64_MIN)
    return failAt(start, "integer out of range");
  out = negative ? value : -value;
  if (out < min || out > max)
    return failAt(start, "integer " + std::to_string(out) + " is outside [" + std::to_string(min) +
                             ", " + std::to_string(max) + "]");
  return true;
}

char JsonParser::peek() {
  skipWhitespace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool JsonParser::failHere(const std::string &message) {
  skipWhitespace();
  return fail(message);
}

bool JsonParser::expectEnd() {
  skipWhitespace();
  if (pos_ != text_.size())
    return fail("unexpected " + describeAt(text_, pos_) + " after the JSON value");
  return true;
}

bool extractStringFields(std::string_view line, const std::vector<std::string> &keys,
                         std::vector<std::string> &values, std::string &error,
                         size_t &errorColumn) {
  values.assign(keys.size(), std::string());
  std::vector<bool> found(keys.size(), false);
  JsonParser parser(line);
  bool ok = parser.parseObject([&](const std::string &key) {
    for (size_t k = 0; k < keys.size(); ++k) {
      if (key != keys[k])
        continue;
      found[k] = true;
      if (parser.peek() != '"')
        return parser.failHere("the value of " + jsonQuote(key) + " is not a string");
      return parser.parseString(values[k]);
    }
    return parser.skipValue();
  });
  if (!ok || !parser.expectEnd()) {
    error = parser.errorMessage();
    errorColumn = parser.errorColumn();
    return false;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!found[k]) {
      error = "no key " + jsonQuote(keys[k]) + " in the object";
      errorColumn = 0;
      return false;
    }
  }
  return true;
}

std::string jsonQuote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04X", c);
        out += buffer;
      } else {
        out += ch;
      }
    }
  }
  return out + "\"";
}

} // namespace mt
