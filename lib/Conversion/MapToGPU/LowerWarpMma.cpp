//===- LowerWarpMma.cpp - warp tensor-core products as nvvm.mma.sync -------===//
//
// mt.warp_mma keeps its fragments as 16-bit vectors so the emulator and the
// kernels' own code can read them element by element; PTX's mma.sync takes
// them in pairs (bf16 packed in 32-bit registers). MLIR 22's nvgpu.mma.sync does
// not lower bf16, so the op goes straight to nvvm.mma.sync here.
//
//===----------------------------------------------------------------------===//
#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mt {
#define GEN_PASS_DEF_LOWERWARPMMAPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

/// The 16-bit elements of `v` in pairs, `count` of them, as nvvm.mma.sync
/// takes each kind: bf16 pairs packed in i32 registers, f16 pairs as
/// vector<2xf16>.
SmallVector<Value> pairs(OpBuilder &b, Location loc, Value v, int64_t count) {
  SmallVector<Value> out;
  if (cast<VectorType>(v.getType()).getElementType().isF16()) {
    for (int64_t i = 0; i < count; ++i)
      out.push_back(vector::ShuffleOp::create(b, loc, v, v, ArrayRef<int64_t>{2 * i, 2 * i + 1}));
    return out;
  }
  Value words = vector::BitCastOp::create(b, loc, VectorType::get({count}, b.getI32Type()), v);
  for (int64_t i = 0; i < count; ++i)
    out.push_back(vector::ExtractOp::create(b, loc, words, i));
  return out;
}

SmallVector<Value> elements(OpBuilder &b, Location loc, Value v, int64_t count) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(vector::ExtractOp::create(b, loc, v, i));
  return out;
}

void lower(IRRewriter &rewriter, mt::WarpMmaOp op) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  auto ptxType = op.getA().getType().getElementType().isBF16() ? NVVM::MMATypes::bf16
                                                              : NVVM::MMATypes::f16;
  auto result = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), {f32, f32, f32, f32});
  Value mma = NVVM::MmaOp::create(
      rewriter, loc, result, pairs(rewriter, loc, op.getA(), 4),
      pairs(rewriter, loc, op.getB(), 2), elements(rewriter, loc, op.getC(), 4),
      op.getShape(), std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, i));
  rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(), d);
}

struct LowerWarpMmaPass : mt::impl::LowerWarpMmaPassBase<LowerWarpMmaPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](mt::WarpMmaOp op) { lower(rewriter, op); });
  }
};

} // namespace
