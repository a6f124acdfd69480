//===- Options.h - mt-run's command line -------------------------*- C++ -*-===//
#ifndef MT_TOOLS_MTRUN_OPTIONS_H
#define MT_TOOLS_MTRUN_OPTIONS_H

#include "mt/Runtime/Training/TrainingRun.h"

#include <cstdint>
#include <string>

namespace mtrun {

/// The run's options and what mt-run itself takes: the plan, --dump, and
/// how long a rank waits for another.
struct Options : mt::TrainingRunOptions {
  std::string plan;
  bool dump = false;
  double commTimeout = 300;
};

/// Parses the command line (llvm::cl: `--flag value` and `--flag=value`)
/// and checks what the parser cannot; false after printing the error.
bool parseOptions(int argc, char **argv, Options &o);

/// Prints "mt-run: error: MESSAGE" and returns 1.
int fail(const std::string &message);

} // namespace mtrun

#endif // MT_TOOLS_MTRUN_OPTIONS_H
