//===- Initializer.h - parameter initialization by global index -*- C++ -*-===//
//
// Every element's initial value is a pure function of (seed, parameter name,
// global element index), so a sharded run initializes exactly the slices of
// the unsharded tensors, whatever the parallel layout.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CODE_INITIALIZER_H
#define MT_RUNTIME_CODE_INITIALIZER_H

#include <cstdint>
#include <string>

namespace mt {

enum class InitKind { Normal, Zeros, Ones };

/// splitmix64: the counter-based mixer behind every random stream.
uint64_t splitmix64(uint64_t x);

/// The key of a parameter's random stream.
uint64_t parameterKey(uint64_t seed, const std::string &name);

/// The initial value of element `index` (global, row-major) of a parameter.
double initialValue(InitKind kind, double std, uint64_t key, uint64_t index);

/// Fills elements [begin, end) (global indices) of a parameter into `out`.
template <typename T>
void initializeRange(InitKind kind, double std, uint64_t key, uint64_t begin, uint64_t end,
                     T *out) {
  for (uint64_t i = begin; i < end; ++i)
    out[i - begin] = static_cast<T>(initialValue(kind, std, key, i));
}

} // namespace mt

#endif // MT_RUNTIME_CODE_INITIALIZER_H
