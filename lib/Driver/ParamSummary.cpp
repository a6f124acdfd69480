//===- ParamSummary.cpp - mtc --summary ------------------------------------===//
#include "mt/Driver/ParamSummary.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Support/Format.h"

#include "llvm/Support/Format.h"

#include <array>

using namespace mlir;

namespace mt {

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

void printParamSummary(ModuleOp module, llvm::raw_ostream &os) {
  for (func::FuncOp func : modelFunctions(module)) {
    auto params = collectParams(func);
    // One row per parameter; widths fit the longest cell of each column.
    std::vector<std::array<std::string, 5>> rows;
    rows.push_back({"parameter", "shape", "dtype", "layers", "count"});
    int64_t total = 0, bytes = 0;
    for (const ParamInfo &p : params) {
      std::vector<int64_t> shape(p.type.getShape().begin(), p.type.getShape().end());
      int64_t count = p.numElements();
      total += count;
      bytes += count * static_cast<int64_t>(p.type.getElementTypeBitWidth() / 8);
      rows.push_back({p.name, shapeToString(shape), typeName(p.type.getElementType()),
                      p.stackedLayers ? std::to_string(p.stackedLayers) : "-",
                      withThousands(count)});
    }
    std::array<size_t, 5> width{};
    for (const auto &row : rows)
      for (size_t c = 0; c < row.size(); ++c)
        width[c] = std::max(width[c], row[c].size());
    os << "model @" << func.getSymName() << ": " << params.size() << " parameter tensors\n";
    for (const auto &row : rows) {
      for (size_t c = 0; c + 1 < row.size(); ++c)
        os << llvm::left_justify(row[c], width[c]) << "  ";
      os << llvm::right_justify(row.back(), width.back()) << "\n";
    }
    os << "total parameters: " << withThousands(total) << " (" << humanBytes(bytes) << ")\n";
  }
}

} // namespace mt
