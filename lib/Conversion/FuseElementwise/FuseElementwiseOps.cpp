//===- FuseElementwiseOps.cpp - elementwise producers into their consumer --===//
//
// On a GPU every linalg op is a kernel launch and a round trip of its
// result through memory: a cast before an add, a square before a sum. Here
// upstream's producer-consumer fusion of linalg on tensors merges an
// elementwise producer into the one op that reads it, which computes the
// producer's body at the element it reads: the same operations on the same
// values, so the results do not change. What the lowering after it must
// still recognise is kept apart: a GEMM (mt-convert-contractions-to-blas
// matches a multiply-accumulate and the rounding after it).
//
//===----------------------------------------------------------------------===//
#include "ElementwiseIntoTransposes.h"
#include "mt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mt {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Fuses `operand`'s producer into its owner when the producer has no
/// other use and neither side belongs to a GEMM.
bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse() || isContraction(operand->getOwner()))
    return false;
  // A consumer that reads the result broadcast (a bias cast, added to every
  // row) would redo the producer's work at each repeat: on an H100 the bias
  // adds ran 2.7x slower with their casts inside
  // (bench/gpu/results/2026-11-27-h100-run5.log).
  auto consumer = cast<linalg::LinalgOp>(operand->getOwner());
  if (consumer.getMatchingIndexingMap(operand).getNumResults() != consumer.getNumLoops())
    return false;
  // The rounding of a GEMM's fp32 product into bf16 is the GEMM's own
  // output once it is a library call.
  return llvm::none_of(producer->getOperands(),
                       [](Value v) { return isContraction(v.getDefiningOp()); });
}

/// A piece of a concat made by a linalg op into a fresh tensor (a merge of
/// heads, a transpose, reshaped) is written by that op into the concat's slice
/// instead: bufferization then stores it in place, and the copy it leaves
/// is of a view onto itself, which mt-map-to-gpu drops. The op moves down
/// to the insertion, where the concat's tensor exists.
void writeConcatPiecesInPlace(Operation *root) {
  SmallVector<tensor::InsertSliceOp> inserts;
  root->walk([&](tensor::InsertSliceOp op) { inserts.push_back(op); });
  for (tensor::InsertSliceOp insert : inserts) {
    Value piece = insert.getSource();
    auto collapse = piece.getDefiningOp<tensor::CollapseShapeOp>();
    if (collapse)
      piece = collapse.getSrc();
    auto producer = piece.getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer->getNumResults() != 1 || !piece.hasOneUse() ||
        (collapse && !collapse->hasOneUse()) || producer->getBlock() != insert->getBlock() ||
        !insert.hasUnitStride() || !insert.getSourceType().hasStaticShape())
      continue;
    // Only a tensor built of pieces from nothing (a concat): one whose
    // other bytes something still reads would be copied whole instead.
    Value whole = insert.getDest();
    while (auto earlier = whole.getDefiningOp<tensor::InsertSliceOp>())
      whole = earlier.getDest();
    if (!whole.getDefiningOp<tensor::EmptyOp>() || !insert.getDest().hasOneUse())
      continue;
    OpOperand *init = producer.getDpsInitOperand(0);
    auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || producer.payloadUsesValueFromOperand(init))
      continue;
    producer->moveBefore(insert);
    if (collapse)
      collapse->moveBefore(insert);
    OpBuilder b(producer);
    Value slice = tensor::ExtractSliceOp::create(
        b, insert.getLoc(), insert.getSourceType(), insert.getDest(), insert.getMixedOffsets(),
        insert.getMixedSizes(), insert.getMixedStrides());
    if (collapse)
      slice = tensor::ExpandShapeOp::create(b, insert.getLoc(), collapse.getSrcType(), slice,
                                            collapse.getReassociationIndices());
    init->set(slice);
    if (empty->use_empty())
      empty->erase();
  }
}

struct FuseElementwiseOpsPass : mt::impl::FuseElementwiseOpsPassBase<FuseElementwiseOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    // No folding: it would turn a tensor built from a scalar (a layer's
    // dropout key offset) into a constant tensor, a global buffer, which is
    // host memory on a GPU.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // A transpose is a named op, out of the patterns' reach, and views stand
    // between it and what it reads (the QKV bias add before the head splits).
    mt::fuseElementwiseIntoTransposes(getOperation());
    // After the fusion, whose patterns give an op that does not read its
    // outs a fresh tensor again.
    writeConcatPiecesInPlace(getOperation());
  }
};

} // namespace
