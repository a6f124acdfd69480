//===- ParamSummary.cpp - mtc --summary ------------------------------------===//
#include "ParamSummary.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Support/Format.h"

#include "llvm/Support/Format.h"

using namespace mlir;

namespace mt {

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

bool printParamSummary(ModuleOp module, llvm::raw_ostream &os) {
  auto funcs = modelFunctions(module);
  if (funcs.empty())
    return false;
  for (func::FuncOp func : funcs) {
    auto params = collectParams(func);
    size_t nameWidth = 9;
    for (const ParamInfo &p : params)
      nameWidth = std::max(nameWidth, p.name.size());
    os << "model @" << func.getSymName() << ": " << params.size() << " parameter tensors\n";
    os << llvm::left_justify("parameter", nameWidth) << "  "
       << llvm::left_justify("shape", 16) << "  " << llvm::left_justify("dtype", 5) << "  "
       << llvm::right_justify("count", 13) << "\n";
    int64_t total = 0, bytes = 0;
    for (const ParamInfo &p : params) {
      std::vector<int64_t> shape(p.type.getShape().begin(), p.type.getShape().end());
      std::string shapeText = shapeToString(shape);
      if (p.stackedLayers)
        shapeText += " (" + std::to_string(p.stackedLayers) + " layers)";
      int64_t count = p.numElements();
      total += count;
      bytes += count * static_cast<int64_t>(p.type.getElementTypeBitWidth() / 8);
      os << llvm::left_justify(p.name, nameWidth) << "  "
         << llvm::left_justify(shapeText, 16) << "  "
         << llvm::left_justify(typeName(p.type.getElementType()), 5) << "  "
         << llvm::right_justify(withThousands(count), 13) << "\n";
    }
    os << "total parameters: " << withThousands(total) << " (" << humanBytes(bytes) << ")\n";
  }
  return true;
}

} // namespace mt
