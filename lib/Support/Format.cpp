//===- Format.cpp - number formatting for reports --------------------------===//
#include "mt/Support/Format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

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

namespace mt {

bool parseByteSize(const std::string &text, int64_t &bytes, std::string &error) {
  error = "'" + text + "' is not a size in bytes (examples: 2500000, 80GB, 1.5GiB, 512KiB)";
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0 || std::count(text.begin(), text.begin() + static_cast<long>(end), '.') > 1)
    return false;
  double number = std::strtod(text.substr(0, end).c_str(), nullptr);
  std::string unit = text.substr(end);
  unit.erase(0, unit.find_first_not_of(' '));
  static const std::pair<const char *, double> units[] = {{"", 1},
                                                          {"B", 1},
                                                          {"K", 1e3},
                                                          {"KB", 1e3},
                                                          {"M", 1e6},
                                                          {"MB", 1e6},
                                                          {"G", 1e9},
                                                          {"GB", 1e9},
                                                          {"T", 1e12},
                                                          {"TB", 1e12},
                                                          {"KiB", 1024},
                                                          {"MiB", 1048576.0},
                                                          {"GiB", 1073741824.0},
                                                          {"TiB", 1099511627776.0}};
  for (auto [name, scale] : units)
    if (unit == name) {
      double value = number * scale;
      if (!(value < 9.2e18))
        return false;
      bytes = static_cast<int64_t>(value + 0.5);
      error.clear();
      return true;
    }
  return false;
}

} // namespace mt
