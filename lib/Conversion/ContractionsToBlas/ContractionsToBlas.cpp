//===- ContractionsToBlas.cpp - GEMM loops -> BLAS calls -------------------===//
#include "mt/Conversion/Passes.h"
#include "mt/Runtime/Abi.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mt {
#define GEN_PASS_DEF_CONTRACTIONSTOBLASPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// What a matched contraction multiplies: loop indices of the batch, M, N
/// and K dimensions, and how A and B are laid out.
struct Gemm {
  SmallVector<unsigned> batch;
  unsigned m, n, k;
  bool transA, transB, sharedB;
  /// Every operand's batch dimensions collapse into one with a static
  /// stride: one strided-batched call covers the whole batch.
  bool stridedBatch = false;
  /// 16-bit operands whose fp32 product is only rounded into a 16-bit
  /// buffer: the GEMM writes that buffer itself (C = round(op(A) op(B))),
  /// and the fp32 temporary, its zero fill and the rounding loop go.
  linalg::GenericOp rounding;
};

/// The static strides of `v`'s type, if it has them.
std::optional<SmallVector<int64_t>> staticStrides(Value v) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// Whether `v`'s leading (batch) dimensions are one run of matrices at a
/// constant stride: each batch dimension's stride is the next one's times
/// its size.
bool batchCollapses(Value v) {
  auto strides = staticStrides(v);
  if (!strides)
    return false;
  auto shape = cast<MemRefType>(v.getType()).getShape();
  for (size_t d = 0; d + 3 < shape.size(); ++d)
    if ((*strides)[d] != (*strides)[d + 1] * shape[d + 1])
      return false;
  return true;
}

/// The dims of a projected-permutation map, in result order.
std::optional<SmallVector<unsigned>> dimsOf(AffineMap map) {
  if (!map.isProjectedPermutation())
    return std::nullopt;
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults())
    dims.push_back(cast<AffineDimExpr>(e).getPosition());
  return dims;
}

/// `v`, or what it was widened from when it is an arith.extf.
Value unwidened(Value v) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext ? ext.getIn() : v;
}

/// out += a * b, in either operand order; a and b may both be widened
/// (bf16 inputs summed in fp32).
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = unwidened(mul.getLhs()), y = unwidened(mul.getRhs());
  bool widened = x != mul.getLhs();
  if (widened != (y != mul.getRhs()) || body.getOperations().size() != (widened ? 5u : 3u))
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

/// The GEMM's name suffix for its operand and result types: f32, f64, or
/// bf16 / f16 (16-bit A and B, fp32 C and arithmetic); empty when there is
/// none.
std::string gemmType(linalg::GenericOp op) {
  auto elementOf = [](Value v) { return cast<MemRefType>(v.getType()).getElementType(); };
  Type a = elementOf(op.getDpsInputs()[0]), b = elementOf(op.getDpsInputs()[1]),
       c = elementOf(op.getDpsInits()[0]);
  if (a != b)
    return "";
  if (a == c && (c.isF32() || c.isF64()))
    return c.isF32() ? "f32" : "f64";
  if (a.isBF16() && c.isF32())
    return "bf16";
  if (a.isF16() && c.isF32())
    return "f16";
  return "";
}

bool rowsContiguous(Value v) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) && !strides.empty() &&
         strides.back() == 1;
}

/// When `op` (16-bit operands, fp32 result) writes a fresh buffer that is
/// zero-filled before it and only read, after it, by an elementwise loop
/// rounding it into a 16-bit buffer of its shape: that loop.
linalg::GenericOp roundingOf(linalg::GenericOp op) {
  Value t = op.getDpsInits()[0];
  auto alloc = t.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock())
    return nullptr;
  linalg::FillOp fill;
  linalg::GenericOp rounding;
  for (Operation *user : t.getUsers()) {
    if (user == op)
      continue;
    if (auto f = dyn_cast<linalg::FillOp>(user); f && !fill && f.getOutputs()[0] == t) {
      auto zero = f.getInputs()[0].getDefiningOp<arith::ConstantOp>();
      auto value = zero ? dyn_cast<FloatAttr>(zero.getValue()) : FloatAttr();
      if (!value || !value.getValue().isPosZero() || !f->isBeforeInBlock(op))
        return nullptr;
      fill = f;
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || rounding || g->getBlock() != op->getBlock() || !op->isBeforeInBlock(g) ||
        g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 || g.getDpsInputs()[0] != t ||
        !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
      return nullptr;
    Block &body = g.getRegion().front();
    auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
    if (body.getOperations().size() != 2 || !trunc || trunc.getIn() != body.getArgument(0) ||
        cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) != trunc.getResult())
      return nullptr;
    Type out = cast<MemRefType>(g.getDpsInits()[0].getType()).getElementType();
    if (out != cast<MemRefType>(op.getDpsInputs()[0].getType()).getElementType())
      return nullptr;
    rounding = g;
  }
  if (!fill || !rounding)
    return nullptr;
  // Nothing but scalar arithmetic and fresh allocations (the 16-bit
  // buffer's, or a reshaped view of one: a returned temporary) between the
  // GEMM and the rounding, where the call will go: the operands are
  // unchanged there.
  for (Operation *o = op->getNextNode(); o != rounding; o = o->getNextNode())
    if (!isa<arith::ArithDialect>(o->getDialect()) &&
        !isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(o))
      return nullptr;
  return rounding;
}

std::optional<Gemm> match(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return std::nullopt;
  if (gemmType(op).empty() || !isMultiplyAccumulate(op))
    return std::nullopt;
  auto iters = op.getIteratorTypesArray();
  if (llvm::count(iters, utils::IteratorType::reduction) != 1)
    return std::nullopt;
  auto maps = op.getIndexingMapsArray();
  auto a = dimsOf(maps[0]), b = dimsOf(maps[1]), c = dimsOf(maps[2]);
  if (!a || !b || !c || c->size() < 2 || a->size() < 2 || b->size() < 2)
    return std::nullopt;
  Gemm g;
  g.k = std::find(iters.begin(), iters.end(), utils::IteratorType::reduction) - iters.begin();
  g.m = (*c)[c->size() - 2];
  g.n = c->back();
  g.batch.assign(c->begin(), c->end() - 2);
  // A: [batch..., m, k] or [batch..., k, m]; B: [(batch...,) k, n] or [.., n, k].
  ArrayRef<unsigned> aLast = ArrayRef<unsigned>(*a).take_back(2),
                     bLast = ArrayRef<unsigned>(*b).take_back(2);
  if (aLast == ArrayRef<unsigned>{g.m, g.k})
    g.transA = false;
  else if (aLast == ArrayRef<unsigned>{g.k, g.m})
    g.transA = true;
  else
    return std::nullopt;
  if (bLast == ArrayRef<unsigned>{g.k, g.n})
    g.transB = false;
  else if (bLast == ArrayRef<unsigned>{g.n, g.k})
    g.transB = true;
  else
    return std::nullopt;
  if (ArrayRef<unsigned>(*a).drop_back(2) != ArrayRef<unsigned>(g.batch))
    return std::nullopt;
  ArrayRef<unsigned> bBatch = ArrayRef<unsigned>(*b).drop_back(2);
  g.sharedB = bBatch.empty();
  if (!g.sharedB && bBatch != ArrayRef<unsigned>(g.batch))
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!rowsContiguous(v))
      return std::nullopt;
  g.rounding = roundingOf(op);
  if (g.rounding && !rowsContiguous(g.rounding.getDpsInits()[0]))
    g.rounding = nullptr;
  Value result = g.rounding ? g.rounding.getDpsInits()[0] : op.getDpsInits()[0];
  g.stridedBatch = !g.batch.empty() && batchCollapses(op.getDpsInputs()[0]) &&
                   (g.sharedB || batchCollapses(op.getDpsInputs()[1])) && batchCollapses(result);
  return g;
}

/// The buffer the GEMM's result finally goes to: the rounding loop's output
/// when there is one (Gemm::rounding), else its own.
Value resultOf(linalg::GenericOp op, Gemm g) {
  return g.rounding ? g.rounding.getDpsInits()[0] : op.getDpsInits()[0];
}

/// The address of element [0, 0] of a rank-2 view, and its row stride.
std::pair<Value, Value> addressAndLd(OpBuilder &b, Location loc, Value view) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view);
  unsigned bytes = cast<MemRefType>(view.getType()).getElementTypeBitWidth() / 8;
  Value offsetBytes = arith::MulIOp::create(b, loc, meta.getOffset(),
                                            arith::ConstantIndexOp::create(b, loc, bytes));
  Value addr = arith::AddIOp::create(b, loc, base, offsetBytes);
  auto toI64 = [&](Value v) { return arith::IndexCastOp::create(b, loc, b.getI64Type(), v); };
  // extract_aligned_pointer gives the start of the underlying buffer; the
  // view's offset is applied above.
  return {toI64(addr), toI64(meta.getStrides()[0])};
}

/// A rank-2 view of `operand` at batch indices `ivs` (dims `batchDims` of the
/// operand, which lead it).
Value matrixAt(OpBuilder &b, Location loc, Value operand, ArrayRef<Value> ivs) {
  auto type = cast<MemRefType>(operand.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return operand;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    bool isBatch = d < rank - 2;
    offsets.push_back(isBatch ? OpFoldResult(ivs[d]) : OpFoldResult(b.getIndexAttr(0)));
    sizes.push_back(b.getIndexAttr(isBatch ? 1 : type.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
  }
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(rank - 2), type.getDimSize(rank - 1)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(resultType), operand, offsets, sizes,
                                   strides);
}

/// mt_blas_gemm_<t> or mt_blas_gemm_batched_<t> (mt/Runtime/Abi.h states
/// their arguments and the types <t>), declared once per module.
func::FuncOp declareGemm(ModuleOp module, StringRef suffix, bool batched) {
#define MT_GEMM_TYPE_NAME(t) #t,
  static constexpr const char *kTypes[] = {MT_BLAS_GEMM_TYPES(MT_GEMM_TYPE_NAME)};
#undef MT_GEMM_TYPE_NAME
  assert(llvm::is_contained(kTypes, suffix) && "a GEMM type the runtime does not serve");
  (void)kTypes;
  std::string name =
      (Twine(batched ? MT_BLAS_GEMM_BATCHED_PREFIX : MT_BLAS_GEMM_PREFIX) + suffix).str();
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  auto i64 = b.getI64Type();
  unsigned arguments = batched ? mt::abi::arity<MtGemmBatchedFn> : mt::abi::arity<MtGemmFn>;
  auto type = b.getFunctionType(SmallVector<Type>(arguments, i64), {});
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// One strided-batched call: each operand's first matrix, its row stride
/// (dynamic, from the view) and its static batch stride.
void rewriteBatched(linalg::GenericOp op, const Gemm &g, func::FuncOp gemm) {
  // Where the rounding loop was, when the GEMM rounds itself: after the
  // 16-bit buffer is allocated.
  OpBuilder b(g.rounding ? linalg::GenericOp(g.rounding).getOperation() : op.getOperation());
  Location loc = op.getLoc();
  auto ranges = op.getStaticLoopRanges();
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64).getResult(); };
  int64_t count = 1;
  for (unsigned d : g.batch)
    count *= ranges[d];
  SmallVector<Value> args{c64(g.transA), c64(g.transB), c64(ranges[g.m]), c64(ranges[g.n]),
                          c64(ranges[g.k])};
  auto operand = [&](Value v, bool shared) {
    SmallVector<Value> zeros(g.batch.size(), arith::ConstantIndexOp::create(b, loc, 0));
    auto [address, ld] = addressAndLd(b, loc, shared ? v : matrixAt(b, loc, v, zeros));
    SmallVector<int64_t> strides = *staticStrides(v);
    int64_t batchStride = shared ? 0 : strides[strides.size() - 3];
    args.append({address, ld, c64(batchStride)});
  };
  operand(op.getDpsInputs()[0], false);
  operand(op.getDpsInputs()[1], g.sharedB);
  operand(resultOf(op, g), false);
  args.push_back(c64(count));
  func::CallOp::create(b, loc, gemm, args);
  op.erase();
}

void rewrite(linalg::GenericOp op, const Gemm &g, func::FuncOp gemm) {
  OpBuilder b(g.rounding ? linalg::GenericOp(g.rounding).getOperation() : op.getOperation());
  Location loc = op.getLoc();
  auto ranges = op.getStaticLoopRanges();
  Value A = op.getDpsInputs()[0], B = op.getDpsInputs()[1], C = resultOf(op, g);
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64).getResult(); };
  std::function<void(OpBuilder &, SmallVector<Value>)> emit = [&](OpBuilder &ob,
                                                                  SmallVector<Value> ivs) {
    if (ivs.size() < g.batch.size()) {
      Value lb = arith::ConstantIndexOp::create(ob, loc, 0);
      Value ub = arith::ConstantIndexOp::create(ob, loc, ranges[g.batch[ivs.size()]]);
      Value step = arith::ConstantIndexOp::create(ob, loc, 1);
      scf::ForOp::create(ob, loc, lb, ub, step, ValueRange{},
                         [&](OpBuilder &ib, Location, Value iv, ValueRange) {
                           SmallVector<Value> next = ivs;
                           next.push_back(iv);
                           emit(ib, next);
                           scf::YieldOp::create(ib, loc);
                         });
      return;
    }
    auto [a, lda] = addressAndLd(ob, loc, matrixAt(ob, loc, A, ivs));
    auto [bb, ldb] = addressAndLd(ob, loc, g.sharedB ? B : matrixAt(ob, loc, B, ivs));
    auto [c, ldc] = addressAndLd(ob, loc, matrixAt(ob, loc, C, ivs));
    func::CallOp::create(ob, loc, gemm,
                         ValueRange{c64(g.transA), c64(g.transB), c64(ranges[g.m]),
                                    c64(ranges[g.n]), c64(ranges[g.k]), a, lda, bb, ldb, c, ldc});
  };
  emit(b, {});
  op.erase();
}

struct ContractionsToBlasPass : mt::impl::ContractionsToBlasPassBase<ContractionsToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::GenericOp, Gemm>> found;
    module.walk([&](linalg::GenericOp op) {
      if (auto g = match(op))
        found.push_back({op, *g});
    });
    for (auto &[op, g] : found) {
      std::string type = gemmType(op);
      if (g.rounding)
        type += "_into_" + type;
      // The fp32 temporary, its zero fill and the rounding loop, when the
      // GEMM rounds into the 16-bit buffer itself.
      SmallVector<Operation *> replaced;
      if (g.rounding) {
        Value temp = op.getDpsInits()[0];
        replaced.push_back(g.rounding);
        for (Operation *user : temp.getUsers())
          if (isa<linalg::FillOp>(user))
            replaced.push_back(user);
        replaced.push_back(temp.getDefiningOp());
      }
      if (g.stridedBatch)
        rewriteBatched(op, g, declareGemm(module, type, /*batched=*/true));
      else
        rewrite(op, g, declareGemm(module, type, /*batched=*/false));
      for (Operation *dead : replaced)
        dead->erase();
    }
  }
};

} // namespace
