//===- Format.cpp - number formatting for reports --------------------------===//
#include "mt/Support/Format.h"

#include <cstdio>

namespace mt {

std::string withThousands(int64_t value) {
  bool negative = value < 0;
  uint64_t v = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::string humanBytes(int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

} // namespace mt
