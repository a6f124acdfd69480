//===- AbiTest.cpp - the compiler's and the runtime's view of the ABI ------===//
//
// Lowers collectives with mt-lower-to-linalg and reads the codes of each
// runtime call back with the runtime's own decoders (CompiledCollectives):
// a change to either side that the other does not follow fails here.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Comm/CompiledCollectives.h"
#include "mt/Tools/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

using namespace mlir;

namespace {

/// Each collective the module below lowers, in program order, as the
/// runtime must read it.
struct Expected {
  const char *callee;
  mt::ElementType type;
  std::optional<mt::ReduceOp> reduction; // all-reduce only
  std::vector<std::string> axes;         // in mesh order [pp, dp, tp]
};

constexpr const char *kModule = R"mlir(
mt.mesh @mesh axes = ["pp", "dp", "tp"] shape = [2, 2, 2]
func.func @f(%x: tensor<4x16xf32>, %y: tensor<4x16xf64>, %z: tensor<4x16xbf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf64>, tensor<4x32xf32>, tensor<4x4xf64>, tensor<i64>,
        tensor<4x16xbf16>) {
  %a = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum : tensor<4x16xf32>
  %b = mt.all_reduce %y on @mesh axes = ["tp", "dp"] reduction = max : tensor<4x16xf64>
  %c = mt.all_gather %x on @mesh axes = ["pp"] dim = 1 : tensor<4x16xf32> -> tensor<4x32xf32>
  %d = mt.reduce_scatter %y on @mesh axes = ["dp", "pp"] dim = 1 reduction = sum : tensor<4x16xf64> -> tensor<4x4xf64>
  %i = mt.axis_index on @mesh axis = "dp" : tensor<i64>
  %e = mt.all_reduce %z on @mesh axes = ["tp"] reduction = sum : tensor<4x16xbf16>
  return %a, %b, %c, %d, %i, %e : tensor<4x16xf32>, tensor<4x16xf64>, tensor<4x32xf32>, tensor<4x4xf64>, tensor<i64>, tensor<4x16xbf16>
}
)mlir";

int64_t constantOf(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  EXPECT_TRUE(c) << "a runtime call's code is not a constant";
  return c ? cast<IntegerAttr>(c.getValue()).getInt() : -1;
}

/// The runtime entry points' signatures as the ABI states them.
std::map<std::string, std::pair<unsigned, bool>> runtimeSignatures() {
  using mt::abi::Arity;
  return {{MT_RT_AXIS_INDEX, {Arity<MtAxisIndexFn>::value, true}},
          {MT_RT_ALL_REDUCE, {Arity<MtAllReduceFn>::value, false}},
          {MT_RT_ALL_REDUCE_START, {Arity<MtAllReduceFn>::value, false}},
          {MT_RT_ALL_GATHER, {Arity<MtResizeFn>::value, false}},
          {MT_RT_ALL_GATHER_START, {Arity<MtResizeFn>::value, false}},
          {MT_RT_REDUCE_SCATTER, {Arity<MtResizeFn>::value, false}},
          {MT_RT_REDUCE_SCATTER_START, {Arity<MtResizeFn>::value, false}},
          {MT_RT_COLLECTIVE_WAIT, {Arity<MtCollectiveWaitFn>::value, false}},
          {MT_RT_GRADIENT_READY, {Arity<MtGradientReadyFn>::value, false}}};
}

TEST(Abi, CollectiveCallsReadBackAsCompiled) {
  DialectRegistry registry;
  mt::registerDialects(registry);
  mt::registerPassesAndPipelines();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(parsePassPipeline("mt-number-collectives,mt-lower-to-linalg", pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  const std::vector<Expected> expected = {
      {MT_RT_ALL_REDUCE, mt::ElementType::F32, mt::ReduceOp::Sum, {"tp"}},
      {MT_RT_ALL_REDUCE, mt::ElementType::F64, mt::ReduceOp::Max, {"dp", "tp"}},
      {MT_RT_ALL_GATHER, mt::ElementType::F32, std::nullopt, {"pp"}},
      {MT_RT_REDUCE_SCATTER, mt::ElementType::F64, std::nullopt, {"pp", "dp"}},
      {MT_RT_AXIS_INDEX, mt::ElementType::F32, std::nullopt, {"dp"}},
      {MT_RT_ALL_REDUCE, mt::ElementType::BF16, mt::ReduceOp::Sum, {"tp"}}};
  std::vector<func::CallOp> calls;
  module->walk([&](func::CallOp call) {
    if (call.getCallee().starts_with("mt_rt_"))
      calls.push_back(call);
  });
  ASSERT_EQ(calls.size(), expected.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const Expected &e = expected[i];
    func::CallOp call = calls[i];
    SCOPED_TRACE(e.callee);
    ASSERT_EQ(call.getCallee(), e.callee);
    std::vector<std::string> axes;
    if (call.getCallee() == MT_RT_AXIS_INDEX) {
      ASSERT_TRUE(mt::meshAxesOfMask(constantOf(call.getOperand(0)), axes));
      EXPECT_EQ(axes, e.axes);
      continue;
    }
    // all_reduce: (data, count, dtype, reduction, axes, label); all_gather and
    // reduce_scatter: (in, out, outer, inner, dtype, axes, label).
    bool reduce = call.getCallee() == MT_RT_ALL_REDUCE;
    unsigned dtypeAt = reduce ? 2 : 4, axesAt = reduce ? 4 : 5;
    mt::ElementType type;
    ASSERT_TRUE(mt::elementTypeOfCode(constantOf(call.getOperand(dtypeAt)), type));
    EXPECT_EQ(type, e.type);
    if (reduce) {
      mt::ReduceOp op;
      ASSERT_TRUE(mt::reduceOpOfCode(constantOf(call.getOperand(3)), op));
      EXPECT_EQ(op, *e.reduction);
    }
    ASSERT_TRUE(mt::meshAxesOfMask(constantOf(call.getOperand(axesAt)), axes));
    EXPECT_EQ(axes, e.axes);
  }

  // Every runtime function the lowering declared has the ABI's signature.
  auto signatures = runtimeSignatures();
  int declared = 0;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!fn.getSymName().starts_with("mt_rt_"))
      continue;
    ++declared;
    auto it = signatures.find(fn.getSymName().str());
    ASSERT_NE(it, signatures.end()) << fn.getSymName().str() << " is not in mt/Runtime/Abi.h";
    EXPECT_EQ(fn.getNumArguments(), it->second.first) << fn.getSymName().str();
    EXPECT_EQ(fn.getNumResults(), it->second.second ? 1u : 0u) << fn.getSymName().str();
    for (Type t : fn.getArgumentTypes())
      EXPECT_TRUE(t.isInteger(64)) << fn.getSymName().str();
  }
  EXPECT_EQ(declared, 4);
}

TEST(Abi, RuntimeRefusesCodesTheAbiDoesNotDefine) {
  mt::ElementType type;
  mt::ReduceOp op;
  std::vector<std::string> axes;
  EXPECT_FALSE(mt::elementTypeOfCode(0, type));
  EXPECT_FALSE(mt::elementTypeOfCode(5, type));
  EXPECT_FALSE(mt::reduceOpOfCode(0, op));
  EXPECT_FALSE(mt::reduceOpOfCode(3, op));
  EXPECT_FALSE(mt::meshAxesOfMask(8, axes));
  EXPECT_FALSE(mt::meshAxesOfMask(-1, axes));
  ASSERT_TRUE(mt::meshAxesOfMask(0, axes));
  EXPECT_TRUE(axes.empty());
}

TEST(Abi, EveryAxisSubsetRoundTrips) {
  for (int64_t mask = 0; mask < (int64_t{1} << MT_ABI_MESH_AXES); ++mask) {
    std::vector<std::string> axes;
    ASSERT_TRUE(mt::meshAxesOfMask(mask, axes));
    int64_t back = 0;
    for (const std::string &a : axes)
      back |= mt::abi::axisBit(a);
    EXPECT_EQ(back, mask);
  }
  EXPECT_EQ(mt::abi::axisBit("ep"), 0);
}

} // namespace
