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

/// "2500000", "2.5MB", "64KiB", "1.5 GiB" -> bytes (K, M, G, T with or without
/// B are powers of 1000; KiB, MiB, GiB, TiB powers of 1024). False with
/// `error` for anything else, a negative size or one that overflows.
bool parseByteSize(const std::string &text, int64_t &bytes, std::string &error);

} // namespace mt

#endif // MT_SUPPORT_FORMAT_H
