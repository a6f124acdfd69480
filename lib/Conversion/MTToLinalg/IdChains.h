//===- IdChains.h - rows that share an id, linked in row order -*- C++ -*-===//
//
// The embedding gradient adds every row of the output gradient into the
// table row of its token id, deterministically and without atomics: the
// rows of one id form a chain in row order, and the first row of each id
// walks it. IdChains builds those links. Few rows: each row scans forward
// (and backward) for its id, quadratic in the rows. Many rows: the scans
// stay inside blocks of rows, and a table of each block's first row of
// each id links the blocks, so the work is rows x (block + blocks).
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_CONVERSION_MTTOLINALG_IDCHAINS_H
#define MT_LIB_CONVERSION_MTTOLINALG_IDCHAINS_H

#include "LinalgBuilder.h"

namespace mt {

class IdChains {
public:
  /// `ids` [rows] of an integer type; `vocab` rows of the table the chains
  /// scatter into, holding ids [offset, offset + vocab) (`offset` an index).
  IdChains(LinalgBuilder &lb, mlir::Value ids, int64_t rows, int64_t vocab, mlir::Value offset);

  /// i32 [rows]: the next row with the same id, or `rows` for an id's last.
  mlir::Value next() const { return next_; }

  /// Whether row `r` (of id `rawId`, `localId` = rawId - offset, inside the
  /// table) is the first row of its id, built where `b` stands.
  mlir::Value isFirst(mlir::OpBuilder &b, mlir::Location l, mlir::Value r, mlir::Value rawId,
                      mlir::Value localId) const;

  /// How many blocks of rows the chains are built in (1: not blocked).
  static int64_t blocksFor(int64_t rows, int64_t vocab);

private:
  mlir::Value buildTable(LinalgBuilder &lb, mlir::Value offset) const;
  mlir::Value buildNext(LinalgBuilder &lb, mlir::Value offset) const;

  mlir::Value ids_;
  int64_t rows_, vocab_, blocks_, perBlock_;
  mlir::Value table_; // i32 [blocks, vocab]: a block's first row of an id, or -1
  mlir::Value next_;
};

} // namespace mt

#endif // MT_LIB_CONVERSION_MTTOLINALG_IDCHAINS_H
