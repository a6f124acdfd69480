//===- Errors.h - llvm::Error from a format string --------------*- C++ -*-===//
#ifndef MT_SUPPORT_ERRORS_H
#define MT_SUPPORT_ERRORS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

namespace mt {

/// An llvm::Error whose message is formatv(fmt, values...).
template <typename... Ts> llvm::Error errorf(const char *fmt, Ts &&...values) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv(fmt, std::forward<Ts>(values)...).str());
}

} // namespace mt

#endif // MT_SUPPORT_ERRORS_H
