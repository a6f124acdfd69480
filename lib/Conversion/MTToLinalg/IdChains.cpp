//===- IdChains.cpp - rows that share an id, linked in row order ----------===//
#include "IdChains.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace mt {
namespace {

using Pred = arith::CmpIPredicate;

Value cstIndex(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}
Value cmp(OpBuilder &b, Location l, Pred p, Value x, Value y) {
  return arith::CmpIOp::create(b, l, p, x, y);
}
Value asIndex(OpBuilder &b, Location l, Value i) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
}
Value asI32(OpBuilder &b, Location l, Value i) {
  return arith::IndexCastOp::create(b, l, b.getI32Type(), i);
}

/// Walks j from `from` one row at a time (forward: up while j < limit;
/// backward: down while j >= limit) until ids[j] == id; returns where it
/// stopped (`limit`, or one past it backward, when no row has the id).
Value scanFor(OpBuilder &b, Location l, Value ids, Value from, Value limit, int64_t rows, Value id,
              bool forward) {
  Value step = cstIndex(b, l, forward ? 1 : -1);
  auto scan = scf::WhileOp::create(
      b, l, TypeRange{b.getIndexType()}, ValueRange{from},
      [&](OpBuilder &cb, Location cl, ValueRange j) {
        Value inside =
            forward ? cmp(cb, cl, Pred::slt, j[0], limit) : cmp(cb, cl, Pred::sge, j[0], limit);
        // A clamped index, so the read past the end stays in the buffer.
        Value at = forward ? Value(arith::MinSIOp::create(cb, cl, j[0], cstIndex(cb, cl, rows - 1)))
                           : Value(arith::MaxSIOp::create(cb, cl, j[0], cstIndex(cb, cl, 0)));
        Value other = tensor::ExtractOp::create(cb, cl, ids, ValueRange{at});
        Value differs = cmp(cb, cl, Pred::ne, other, id);
        scf::ConditionOp::create(cb, cl, arith::AndIOp::create(cb, cl, inside, differs), j);
      },
      [&](OpBuilder &db, Location dl, ValueRange j) {
        scf::YieldOp::create(db, dl, ValueRange{arith::AddIOp::create(db, dl, j[0], step)});
      });
  return scan.getResult(0);
}

/// The first j in [from, end) with ids[j] == id, else `end`.
Value scanForward(OpBuilder &b, Location l, Value ids, Value from, Value end, int64_t rows,
                  Value id) {
  return scanFor(b, l, ids, from, end, rows, id, /*forward=*/true);
}

/// Whether no j in [start, r) has ids[j] == id (a scan backward from r - 1).
Value noneBefore(OpBuilder &b, Location l, Value ids, Value r, Value start, int64_t rows,
                 Value id) {
  Value from = arith::SubIOp::create(b, l, r, cstIndex(b, l, 1));
  return cmp(b, l, Pred::slt, scanFor(b, l, ids, from, start, rows, id, /*forward=*/false), start);
}

/// The first block k in [from, blocks) whose table entry for `localId` is
/// set, else `blocks`.
Value firstSetBlock(OpBuilder &b, Location l, Value table, Value from, int64_t blocks,
                    Value localId) {
  Value one = cstIndex(b, l, 1), end = cstIndex(b, l, blocks), last = cstIndex(b, l, blocks - 1);
  Value unset = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(-1));
  auto scan = scf::WhileOp::create(
      b, l, TypeRange{b.getIndexType()}, ValueRange{from},
      [&](OpBuilder &cb, Location cl, ValueRange k) {
        Value inside = cmp(cb, cl, Pred::slt, k[0], end);
        Value at = arith::MinSIOp::create(cb, cl, k[0], last);
        Value entry = tensor::ExtractOp::create(cb, cl, table, ValueRange{at, localId});
        Value empty = cmp(cb, cl, Pred::eq, entry, unset);
        scf::ConditionOp::create(cb, cl, arith::AndIOp::create(cb, cl, inside, empty), k);
      },
      [&](OpBuilder &db, Location dl, ValueRange k) {
        scf::YieldOp::create(db, dl, ValueRange{arith::AddIOp::create(db, dl, k[0], one)});
      });
  return scan.getResult(0);
}

/// rawId - offset clamped into [0, vocab): a table column every row may read
/// (rows outside the table never walk, so what they read does not matter).
Value clampedLocal(OpBuilder &b, Location l, Value rawId, Value offset, int64_t vocab) {
  Value id = arith::SubIOp::create(b, l, asIndex(b, l, rawId), offset);
  id = arith::MaxSIOp::create(b, l, id, cstIndex(b, l, 0));
  return arith::MinSIOp::create(b, l, id, cstIndex(b, l, vocab - 1));
}

} // namespace

int64_t IdChains::blocksFor(int64_t rows, int64_t vocab) {
  // Below this the quadratic scans cost less than filling the table. At
  // 4096 rows they took 308 us on an H100 (2026-11-27, run 13), where the
  // blocked chains of 65536 rows took 440 us in all.
  constexpr int64_t kMinRows = 2048;
  // The table [blocks, vocab] of i32 stays within this many bytes.
  constexpr int64_t kMaxTableBytes = int64_t(32) << 20;
  if (rows < kMinRows || vocab <= 0)
    return 1;
  int64_t limit = std::min<int64_t>(static_cast<int64_t>(std::sqrt(double(rows))),
                                    kMaxTableBytes / (4 * vocab));
  for (int64_t k = limit; k >= 2; --k)
    if (rows % k == 0)
      return k;
  return 1;
}

IdChains::IdChains(LinalgBuilder &lb, Value ids, int64_t rows, int64_t vocab, Value offset)
    : ids_(ids), rows_(rows), vocab_(vocab), blocks_(blocksFor(rows, vocab)),
      perBlock_(rows / blocks_) {
  if (blocks_ > 1)
    table_ = buildTable(lb, offset);
  next_ = buildNext(lb, offset);
}

Value IdChains::buildTable(LinalgBuilder &lb, Value offset) const {
  OpBuilder &b = lb.builder();
  Value init = lb.filled({blocks_, vocab_}, b.getI32Type(), -1.0);
  // Each row that is its block's first of an in-table id writes its entry;
  // no two rows write one entry, so the rows run in parallel.
  return forEachRow(
      b, lb.location(), rows_, ValueRange{init},
      [&](OpBuilder &rb, Location rl, Value r, ValueRange carried) {
        Value rawId = tensor::ExtractOp::create(rb, rl, ids_, ValueRange{r});
        Value id = arith::SubIOp::create(rb, rl, asIndex(rb, rl, rawId), offset);
        Value inside =
            arith::AndIOp::create(rb, rl, cmp(rb, rl, Pred::sge, id, cstIndex(rb, rl, 0)),
                                  cmp(rb, rl, Pred::slt, id, cstIndex(rb, rl, vocab_)));
        Value block = arith::DivUIOp::create(rb, rl, r, cstIndex(rb, rl, perBlock_));
        Value start = arith::MulIOp::create(rb, rl, block, cstIndex(rb, rl, perBlock_));
        Value writes =
            arith::AndIOp::create(rb, rl, inside, noneBefore(rb, rl, ids_, r, start, rows_, rawId));
        // A loop of 0 or 1 steps rather than scf.if: it bufferizes in place.
        Value count =
            arith::SelectOp::create(rb, rl, writes, cstIndex(rb, rl, 1), cstIndex(rb, rl, 0));
        return forRangeTo(
            rb, rl, count, carried, [&](OpBuilder &ib, Location il, Value, ValueRange t) {
              Value entry =
                  tensor::InsertOp::create(ib, il, asI32(ib, il, r), t[0], ValueRange{block, id});
              return SmallVector<Value>{entry};
            });
      })[0];
}

Value IdChains::buildNext(LinalgBuilder &lb, Value offset) const {
  int64_t rows = rows_;
  return lb.generic(
      ids_, lb.identity(1), lb.empty({rows}, lb.builder().getI32Type()), lb.identity(1),
      lb.parallel(1), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value id = a[0];
        Value r = linalg::IndexOp::create(b, l, 0);
        Value from = arith::AddIOp::create(b, l, r, cstIndex(b, l, 1));
        if (blocks_ == 1)
          return asI32(b, l, scanForward(b, l, ids_, from, cstIndex(b, l, rows), rows, id));
        Value per = cstIndex(b, l, perBlock_);
        Value block = arith::DivUIOp::create(b, l, r, per);
        Value blockEnd =
            arith::MulIOp::create(b, l, arith::AddIOp::create(b, l, block, cstIndex(b, l, 1)), per);
        Value inBlock = scanForward(b, l, ids_, from, blockEnd, rows, id);
        Value found = cmp(b, l, Pred::slt, inBlock, blockEnd);
        // Found in the block: the later blocks' scan is empty.
        Value laterFrom =
            arith::SelectOp::create(b, l, found, cstIndex(b, l, blocks_),
                                    arith::AddIOp::create(b, l, block, cstIndex(b, l, 1)));
        Value local = clampedLocal(b, l, id, offset, vocab_);
        Value k = firstSetBlock(b, l, table_, laterFrom, blocks_, local);
        Value at = arith::MinSIOp::create(b, l, k, cstIndex(b, l, blocks_ - 1));
        Value entry = tensor::ExtractOp::create(b, l, table_, ValueRange{at, local});
        Value later =
            arith::SelectOp::create(b, l, cmp(b, l, Pred::slt, k, cstIndex(b, l, blocks_)), entry,
                                    asI32(b, l, cstIndex(b, l, rows)));
        return arith::SelectOp::create(b, l, found, asI32(b, l, inBlock), later);
      });
}

Value IdChains::isFirst(OpBuilder &b, Location l, Value r, Value rawId, Value localId) const {
  if (blocks_ == 1)
    return noneBefore(b, l, ids_, r, cstIndex(b, l, 0), rows_, rawId);
  // The first row of an id is the entry of the first block holding it.
  Value local = arith::MaxSIOp::create(
      b, l, arith::MinSIOp::create(b, l, localId, cstIndex(b, l, vocab_ - 1)), cstIndex(b, l, 0));
  Value k = firstSetBlock(b, l, table_, cstIndex(b, l, 0), blocks_, local);
  Value at = arith::MinSIOp::create(b, l, k, cstIndex(b, l, blocks_ - 1));
  Value entry = tensor::ExtractOp::create(b, l, table_, ValueRange{at, local});
  return arith::AndIOp::create(b, l, cmp(b, l, Pred::slt, k, cstIndex(b, l, blocks_)),
                               cmp(b, l, Pred::eq, entry, asI32(b, l, r)));
}

} // namespace mt
