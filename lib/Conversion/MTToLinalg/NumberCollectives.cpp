//===- NumberCollectives.cpp - the mt-number-collectives pass --------------===//
#include "mt/Conversion/Passes.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mt {
#define GEN_PASS_DEF_NUMBERCOLLECTIVESPASS
#include "mt/Conversion/Passes.h.inc"
} // namespace mt

using namespace mlir;

namespace {

struct NumberCollectivesPass : mt::impl::NumberCollectivesPassBase<NumberCollectivesPass> {
  void runOnOperation() override {
    int64_t next = 0;
    // Pre-order: the order in which the module lists them, which is the
    // same on every rank. Pipeline sends and receives are the scheduler's.
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<mt::AllReduceOp, mt::AllGatherOp, mt::ReduceScatterOp>(op))
        op->setAttr(mt::kCollectiveAttrName,
                    IntegerAttr::get(IntegerType::get(op->getContext(), 64), next++));
    });
  }
};

} // namespace
