//===- Format.h - number formatting for reports ----------------*- C++ -*-===//
#ifndef MT_SUPPORT_FORMAT_H
#define MT_SUPPORT_FORMAT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// 124439808 -> "124,439,808".
std::string withThousands(int64_t value);

/// {12, 768} -> "12x768"; {} -> "scalar".
std::string shapeToString(const std::vector<int64_t> &shape);

/// 1536 -> "1.50 KiB".
std::string humanBytes(int64_t bytes);

} // namespace mt

#endif // MT_SUPPORT_FORMAT_H
