//===- Initializer.cpp - parameter initialization by global index ----------===//
#include "mt/Runtime/Code/Initializer.h"

#include <cmath>

namespace mt {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t parameterKey(uint64_t seed, const std::string &name) {
  uint64_t h = 1469598103934665603ull; // FNV-1a of the name
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return splitmix64(seed ^ splitmix64(h));
}

/// A uniform in (0, 1] from the top 53 bits.
static double uniform(uint64_t bits) { return (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53; }

double initialValue(InitKind kind, double std, uint64_t key, uint64_t index) {
  switch (kind) {
  case InitKind::Zeros:
    return 0.0;
  case InitKind::Ones:
    return 1.0;
  case InitKind::Normal:
    break;
  }
  // Box-Muller from two draws keyed by the element's index.
  double u1 = uniform(splitmix64(key + 2 * index)), u2 = uniform(splitmix64(key + 2 * index + 1));
  return std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace mt
