//===- HelpOptions.cpp - a tool's own options in --help --------------------===//
#include "mt/Support/HelpOptions.h"

#include "llvm/ADT/STLExtras.h"

namespace mt {

void showOnlyInHelp(llvm::ArrayRef<const llvm::cl::OptionCategory *> categories) {
  namespace cl = llvm::cl;
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::any_of(option->Categories, [&](const cl::OptionCategory *c) {
      return llvm::is_contained(categories, c);
    });
    // --help, --help-list and --version stay where they are.
    bool generic = llvm::is_contained({"help", "help-list", "version"}, entry.first);
    if (!ours && !generic && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}

} // namespace mt
