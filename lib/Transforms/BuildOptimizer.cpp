//===- BuildOptimizer.cpp - accumulation, grad norm and AdamW functions ----===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Runtime/Abi.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mt {
#define GEN_PASS_DEF_BUILDOPTIMIZERPASS
#include "mt/Transforms/Passes.h.inc"
} // namespace mt

using namespace mlir;
using namespace mt;

namespace {

/// Creates `@name(inputs) -> results` after `anchor` (the training step of
/// `model`), with `body` filling it.
/// The buffers of `roles` for each parameter in turn ([p0 role0, p1 role0,
/// ..., p0 role1, ...]), as the functions below take and return them.
SmallVector<BufferAttr> buffersOf(MLIRContext *context, ArrayRef<BufferRole> roles,
                                  const std::vector<ParamInfo> &params) {
  SmallVector<BufferAttr> out;
  for (BufferRole role : roles)
    for (const ParamInfo &p : params)
      out.push_back(BufferAttr::get(context, role, StringAttr::get(context, p.name)));
  return out;
}

/// A function of `role` whose arguments and results are the runtime's
/// buffers `inputs` and `results` (each marked mt.buffer).
func::FuncOp makeFunction(OpBuilder &b, func::FuncOp anchor, func::FuncOp model, StringRef name,
                          FunctionRole role, ArrayRef<BufferAttr> inputs,
                          ArrayRef<BufferAttr> results, ArrayRef<Type> inputTypes,
                          ArrayRef<Type> resultTypes,
                          function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> body) {
  b.setInsertionPointAfter(anchor);
  auto fn =
      func::FuncOp::create(b, anchor.getLoc(), name, b.getFunctionType(inputTypes, resultTypes));
  setRole(fn, role);
  for (auto [i, buffer] : llvm::enumerate(inputs))
    fn.setArgAttr(i, kBufferAttrName, buffer);
  for (auto [i, buffer] : llvm::enumerate(results))
    fn.setResultAttr(i, kBufferAttrName, buffer);
  fn->setAttr(kModelAttrName, FlatSymbolRefAttr::get(model.getSymNameAttr()));
  Block *entry = fn.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockEnd(entry);
  func::ReturnOp::create(fb, anchor.getLoc(), body(fb, entry->getArguments()));
  return fn;
}

LogicalResult build(ModuleOp module, func::FuncOp model, int64_t shards) {
  std::string name = model.getSymName().str();
  auto grad = module.lookupSymbol<func::FuncOp>(name + "_grad");
  if (!grad)
    return model.emitError("mt-build-optimizer: run mt-derive-gradients first (no @" + name +
                           "_grad)");
  setRole(model, FunctionRole::forward);
  setRole(grad, FunctionRole::train_step);
  std::vector<ParamInfo> params = collectParams(model);
  MLIRContext *context = module.getContext();
  auto buffers = [&](ArrayRef<BufferRole> roles) { return buffersOf(context, roles, params); };
  SmallVector<Type> types;
  for (const ParamInfo &p : params)
    types.push_back(p.type);
  size_t n = params.size();
  Location loc = model.getLoc();
  OpBuilder b(module.getContext());

  // A step that accumulates its gradients itself
  // (mt-fuse-gradient-accumulation) needs no accumulation function.
  bool stepAccumulates = false;
  for (unsigned i = 0; i < grad.getNumArguments(); ++i)
    stepAccumulates |= static_cast<bool>(grad.getArgAttr(i, kAccumulatorOfAttrName));
  if (!stepAccumulates)
    makeFunction(b, grad, model, name + "_accumulate", FunctionRole::accumulate,
                 buffers({BufferRole::grad_accumulator, BufferRole::gradient}),
                 buffers({BufferRole::grad_accumulator}),
                 llvm::to_vector(llvm::concat<Type>(types, types)), types,
                 [&](OpBuilder &fb, ValueRange args) {
                   SmallVector<Value> sums;
                   for (size_t i = 0; i < n; ++i)
                     sums.push_back(AddOp::create(fb, loc, types[i], args[i], args[n + i]));
                   return sums;
                 });

  // The distributed optimizer sees 1-D shards of ceil(n/shards) elements.
  if (shards > 0)
    for (Type &t : types) {
      auto tensor = cast<RankedTensorType>(t);
      int64_t n = tensor.getNumElements();
      t = RankedTensorType::get({(n + shards - 1) / shards}, tensor.getElementType());
    }
  Type element = params.front().type.getElementType();
  auto scalar = RankedTensorType::get({}, element);
  // One sum of squares per parameter: the runtime adds up those its rank
  // owns (a tied embedding's second copy, or a replicated parameter on
  // tensor-parallel peers, counts once), in f64.
  SmallVector<Type> scalars(n, scalar);
  // The distributed optimizer's functions see this rank's shards.
  bool sharded = shards > 0;
  BufferRole paramRole = sharded ? BufferRole::param_shard : BufferRole::param;
  BufferRole gradRole = sharded ? BufferRole::grad_shard : BufferRole::grad_accumulator;
  auto norm = makeFunction(b, grad, model, name + "_grad_sq_norm", FunctionRole::grad_sq_norm,
                           buffers({gradRole}), buffers({BufferRole::grad_square}), types, scalars,
                           [&](OpBuilder &fb, ValueRange args) {
                             SmallVector<Value> sums;
                             for (size_t i = 0; i < n; ++i) {
                               Value sq = MulOp::create(fb, loc, types[i], args[i], args[i]);
                               sums.push_back(SumToOp::create(fb, loc, scalar, sq));
                             }
                             return sums;
                           });

  auto hyper = RankedTensorType::get({MT_ABI_HYPER_COUNT}, Float32Type::get(module.getContext()));
  SmallVector<Type> inputs;
  for (int k = 0; k < 4; ++k)
    inputs.append(types);
  inputs.push_back(hyper);
  SmallVector<Type> results;
  for (int k = 0; k < 3; ++k)
    results.append(types);
  SmallVector<BufferAttr> inputBuffers =
      buffers({paramRole, gradRole, BufferRole::exp_avg, BufferRole::exp_avg_sq});
  inputBuffers.push_back(BufferAttr::get(context, BufferRole::hyper, StringAttr()));
  auto adamw = makeFunction(b, grad, model, name + "_adamw", FunctionRole::optimizer, inputBuffers,
                            buffers({paramRole, BufferRole::exp_avg, BufferRole::exp_avg_sq}),
                            inputs, results, [&](OpBuilder &fb, ValueRange args) {
                              SmallVector<Value> p, m, v;
                              for (size_t i = 0; i < n; ++i) {
                                auto step =
                                    AdamWOp::create(fb, loc, types[i], types[i], types[i], args[i],
                                                    args[n + i], args[2 * n + i], args[3 * n + i],
                                                    args[4 * n], params[i].decays());
                                p.push_back(step.getNewParam());
                                m.push_back(step.getNewExpAvg());
                                v.push_back(step.getNewExpAvgSq());
                              }
                              SmallVector<Value> all(p);
                              all.append(m);
                              all.append(v);
                              return all;
                            });
  return success();
}

struct BuildOptimizerPass : mt::impl::BuildOptimizerPassBase<BuildOptimizerPass> {
  using Base::Base;
  void runOnOperation() override {
    if (distributedOptimizerShards < 0) {
      getOperation().emitError("mt-build-optimizer: distributed-optimizer-shards must be >= 0");
      return signalPassFailure();
    }
    for (func::FuncOp model : modelFunctions(getOperation()))
      if (failed(build(getOperation(), model, distributedOptimizerShards)))
        return signalPassFailure();
  }
};

} // namespace
