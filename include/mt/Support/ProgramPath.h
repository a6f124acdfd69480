//===- ProgramPath.h - files installed beside the running program -*- C++ -*-===//
//
// The tools find their data and plugins relative to their own executable
// (<bin>/../share/mt/gpt2, <bin>/../lib/libmt-*.so), so a build tree and an
// installed tree both work without configuration.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SUPPORT_PROGRAMPATH_H
#define MT_SUPPORT_PROGRAMPATH_H

#include <string>

namespace mt {

/// The directory of the running executable, or "" without /proc.
std::string programDirectory();

/// `relative` resolved against the executable's directory, or "" without /proc.
std::string besideProgram(const std::string &relative);

} // namespace mt

#endif // MT_SUPPORT_PROGRAMPATH_H
