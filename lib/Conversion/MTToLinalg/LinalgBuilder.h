//===- LinalgBuilder.h - building blocks of the mt lowering ----*- C++ -*-===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_LINALGBUILDER_H
#define MT_LIB_CONVERSION_MTTOLINALG_LINALGBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mt {

using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Small vocabulary for writing lowerings: tensors, fills and linalg.generic
/// with the body as a lambda.
class LinalgBuilder {
public:
  LinalgBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }

  mlir::Value empty(llvm::ArrayRef<int64_t> shape, mlir::Type element);
  mlir::Value filled(llvm::ArrayRef<int64_t> shape, mlir::Type element, double value);
  mlir::Value constant(mlir::Type element, double value);
  mlir::Value index(int64_t value);

  /// linalg.generic over the output's iteration space (`numDims` loops). Each
  /// input has a map; the output (one) has `outMap`. `body` gets the input
  /// elements then the output element and returns the new output element.
  /// 16-bit float elements reach `body` widened to computeType, and what it
  /// returns is rounded to the output's type.
  mlir::Value generic(mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> inputMaps,
                      mlir::Value init, mlir::AffineMap outMap,
                      llvm::ArrayRef<mlir::utils::IteratorType> iterators, BodyFn body);

  /// Elementwise map, output shaped like `like`. An input of lower rank
  /// holds a suffix of that shape and is broadcast over the leading
  /// dimensions (a bias).
  mlir::Value map(mlir::ValueRange inputs, mlir::Value like, BodyFn body);

  /// Sums `input` over its last dimension: [..., n] -> [...] (or applies
  /// `combine` starting from `initValue`, e.g. max from -inf).
  mlir::Value reduceLast(mlir::Value input, double initValue, BodyFn combine);

  /// x broadcast from shape [..., n] -> [..., n] given a [...] tensor `row`:
  /// the map reading `row` inside an iteration over `rank` dims.
  mlir::AffineMap dropLastMap(unsigned rank);
  mlir::AffineMap identity(unsigned rank);
  /// The map from `rank` loops onto the trailing `suffix` of them.
  mlir::AffineMap suffixMap(unsigned rank, unsigned suffix);

  /// out[outMap] = init + sum over the reduction loops of lhs[lhsMap] *
  /// rhs[rhsMap], with `init` zeros when null; `reduction` marks which of
  /// the `numDims` loops are summed.
  /// The result has `resultElement` (default: init's, else lhs's); 16-bit
  /// operands are summed in fp32 either way.
  mlir::Value contract(mlir::Value lhs, mlir::AffineMap lhsMap, mlir::Value rhs,
                       mlir::AffineMap rhsMap, llvm::ArrayRef<int64_t> outShape,
                       mlir::AffineMap outMap, llvm::ArrayRef<bool> reduction,
                       mlir::Value init = {}, mlir::Type resultElement = {});

  /// Sums every element of `input` into a 0-d tensor. Large inputs are summed
  /// in levels (partial sums over interleaved slices, then their sum), so a
  /// parallel target sums on many threads; the order depends only on the
  /// shape, never on the target.
  mlir::Value sumAll(mlir::Value input);
  /// The same sum of `element` applied to `inputs` (one shape) at each
  /// position: an elementwise producer summed without storing its result.
  mlir::Value sumAll(mlir::ValueRange inputs, BodyFn element);

  /// How sumRows reads an operand: a cell of [R, W], a row's value [R] or a
  /// column's [W].
  enum class Read { Cell, Row, Column };
  /// out[w] = sum over rows r of `element`(each operand read at (r, w)): a
  /// column sum of `width` columns, [width] of type `type`. Many rows are
  /// summed in two levels (blocks of rows, then the blocks), so a parallel
  /// target runs rows x columns threads, not one per column.
  mlir::Value sumRows(llvm::ArrayRef<std::pair<mlir::Value, Read>> operands, int64_t rows,
                      int64_t width, mlir::Type type, BodyFn element);

  /// The current value of loop `dim` inside a generic body, as i64.
  mlir::Value loopIndexI64(mlir::OpBuilder &nb, mlir::Location nl, unsigned dim);

  /// `input` with each element converted to the float type `element`
  /// (extended exactly, or truncated to nearest even); `input` itself when
  /// it has that type.
  mlir::Value convertElements(mlir::Value input, mlir::Type element);

  /// Row-major reshape between static shapes.
  mlir::Value reshape(mlir::Value input, llvm::ArrayRef<int64_t> shape);

  llvm::SmallVector<mlir::utils::IteratorType> parallel(unsigned n);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

mlir::RankedTensorType tensorOf(mlir::Value v);

/// The type a kernel computes in for elements of type `element`: f32 for
/// 16-bit floats (they are storage; sums and products run in fp32, as
/// Megatron's fused kernels do), else `element` itself.
mlir::Type computeType(mlir::Type element);

/// Float `v` as type `to`: unchanged, extended exactly, or rounded to
/// nearest even (bf16 <-> f16 through f32).
mlir::Value castFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to);

/// The element of a 0-d tensor: the scalar it was built from when it is a
/// tensor.from_elements (a rank's axis index), else a tensor.extract. Keeps
/// host-computed scalars scalars, so the GPU's kernels take them as
/// arguments instead of reading them back from a buffer.
mlir::Value scalarOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor0d);

/// A tensor<i64> position as an index clamped to [lo, hi], so a position
/// the caller got wrong cannot move a read or write out of its buffer.
mlir::Value clampedIndexOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor0d, int64_t lo,
                           int64_t hi);

/// The body of one scf.for step: gets the index and the carried values,
/// returns the carried values for the next step.
using LoopBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value index, mlir::ValueRange carried)>;

/// scf.for over [0, count) carrying `carried`; returns the final values.
/// Tensors carried this way and updated with tensor.insert bufferize in
/// place, so a loop nest built from these allocates nothing inside.
llvm::SmallVector<mlir::Value> forRange(mlir::OpBuilder &b, mlir::Location loc, int64_t count,
                                        mlir::ValueRange carried, LoopBody body);

/// forRange over [0, end) for an index `end` known only at run time (the
/// key tiles a causal query row sees).
llvm::SmallVector<mlir::Value> forRangeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value end,
                                          mlir::ValueRange carried, LoopBody body);

/// forRange over the rows of a row kernel: iteration r reads what it likes
/// but writes only row r of the carried outputs, so the loop is marked
/// `mt.independent_iterations` and a parallel target runs the rows at once.
llvm::SmallVector<mlir::Value> forEachRow(mlir::OpBuilder &b, mlir::Location loc, int64_t rows,
                                          mlir::ValueRange carried, LoopBody body);

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_LINALGBUILDER_H
