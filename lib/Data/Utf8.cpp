//===- Utf8.cpp - decoding and checking UTF-8 ------------------------------===//
#include "mt/Data/Utf8.h"

#include <cstdio>

namespace mt::utf8 {

Decoded decodeAt(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  if (lead < 0x80)
    return {lead, 1, true};

  // The well-formed sequences (Unicode table 3-7): the lead byte fixes the
  // length and the range of the second byte; later bytes are 80..BF.
  size_t length;
  unsigned char secondLow = 0x80, secondHigh = 0xBF;
  char32_t cp;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0F;
    if (lead == 0xE0)
      secondLow = 0xA0; // no overlongs
    if (lead == 0xED)
      secondHigh = 0x9F; // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07;
    if (lead == 0xF0)
      secondLow = 0x90; // no overlongs
    if (lead == 0xF4)
      secondHigh = 0x8F; // nothing above U+10FFFF
  } else {
    return {0, 1, false}; // 80..C1 and F5..FF never start a sequence
  }

  for (size_t k = 1; k < length; ++k) {
    if (pos + k >= text.size())
      return {0, k, false};
    unsigned char b = byte(pos + k);
    unsigned char low = k == 1 ? secondLow : 0x80;
    unsigned char high = k == 1 ? secondHigh : 0xBF;
    if (b < low || b > high)
      return {0, k, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, length, true};
}

void append(std::string &out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

size_t findInvalid(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    Decoded d = decodeAt(text, pos);
    if (!d.valid)
      return pos;
    pos += d.length;
  }
  return std::string_view::npos;
}

std::string replaceInvalid(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    Decoded d = decodeAt(bytes, pos);
    if (d.valid)
      out.append(bytes.substr(pos, d.length));
    else
      append(out, 0xFFFD);
    pos += d.length;
  }
  return out;
}

std::string codePointName(char32_t cp) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "U+%04X", static_cast<unsigned>(cp));
  return buffer;
}

} // namespace mt::utf8
