//===- RowKernel.cpp - writing a kernel as a loop over rows ---------------===//
#include "RowKernel.h"

#include "mt/Analysis/ModelInfo.h"

using namespace mlir;

namespace mt {

/// `independent`: each row writes only its own row of what is carried (not
/// a sum over rows), so the rows may run in parallel (forEachRow).
SmallVector<Value> overRows(LinalgBuilder &lb, int64_t rows, ValueRange carried, RowFn body,
                            bool independent) {
  auto step = [&](OpBuilder &b, Location l, Value r, ValueRange args) {
    return body(Scalar{b, l}, r, args);
  };
  return independent ? forEachRow(lb.builder(), lb.location(), rows, carried, step)
                     : forRange(lb.builder(), lb.location(), rows, carried, step);
}

/// A loop over the row's columns, marked mt.along_row (a GPU spreads the
/// columns over a warp's lanes).
SmallVector<Value> alongRow(Scalar s, int64_t width, ValueRange carried, ColumnFn body) {
  SmallVector<Value> results =
      forRange(s.b, s.l, width, carried, [&](OpBuilder &b, Location l, Value j, ValueRange args) {
        return body(Scalar{b, l}, j, args);
      });
  if (!results.empty())
    results.front().getDefiningOp()->setAttr(kAlongRowAttrName, s.b.getUnitAttr());
  return results;
}

} // namespace mt
