//===- PlanBuilder.cpp - the training plan from a compiled module ----------===//
#include "mt/Driver/PlanBuilder.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Plan/PlanEnums.h"

#include <map>

using namespace mlir;
using mt::buffers::Role;

namespace mt {

namespace {

plan::DType dtypeOf(Type t) {
  if (t.isF32())
    return plan::F32;
  if (t.isF64())
    return plan::F64;
  if (t.isBF16())
    return plan::BF16;
  if (t.isF16())
    return plan::F16;
  if (t.isInteger(32))
    return plan::I32;
  if (t.isInteger(64))
    return plan::I64;
  if (t.isInteger(1))
    return plan::I1;
  return plan::DTYPE_UNSPECIFIED;
}

/// Tallies the all-reduces, all-gathers and reduce-scatters one call of `fn`
/// issues, following calls into other functions of the module.
void countCollectives(ModuleOp module, func::FuncOp fn, plan::Function &out, int depth = 0) {
  if (depth > 16) // the call graph of a plan is shallow; recursion is not ours
    return;
  fn.walk([&](Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
        if (!callee.isExternal())
          countCollectives(module, callee, out, depth + 1);
      return;
    }
    auto collective = dyn_cast<CollectiveOpInterface>(op);
    int64_t bytes = collective ? collective.getGroupTrafficBytes() : 0;
    if (!bytes) // not a group collective
      return;
    StringRef name = op->getName().stripDialect(); // all_reduce, all_gather, reduce_scatter
    std::optional<plan::CollectiveVolume::Kind> kind =
        collectiveKindNamed(std::string_view(name.data(), name.size()));
    if (!kind)
      return;
    // An axis the plan's mesh does not have stays unspecified, which
    // verifyPlan refuses.
    SmallVector<plan::MeshAxis> axes;
    for (StringRef a : collective.getGroupAxes())
      axes.push_back(meshAxisNamed(std::string_view(a.data(), a.size()))
                         .value_or(plan::MESH_AXIS_UNSPECIFIED));
    plan::CollectiveVolume *v = nullptr;
    for (plan::CollectiveVolume &c : *out.mutable_collectives())
      if (c.kind() == *kind && c.axes_size() == static_cast<int>(axes.size()) &&
          std::equal(c.axes().begin(), c.axes().end(), axes.begin()))
        v = &c;
    if (!v) {
      v = out.add_collectives();
      v->set_kind(*kind);
      for (plan::MeshAxis a : axes)
        v->add_axes(a);
    }
    v->set_calls(v->calls() + 1);
    v->set_bytes(v->bytes() + bytes);
  });
}

void fillSpec(plan::TensorSpec &spec, const std::string &name, Type type) {
  auto t = cast<RankedTensorType>(type);
  spec.set_name(name);
  for (int64_t d : t.getShape())
    spec.add_shape(d);
  spec.set_dtype(dtypeOf(t.getElementType()));
}

/// The plan's role for a function's `mt.role`: the IR and the plan number
/// the roles alike (MTAttrs.td, plan.proto).
plan::Function::Role planRole(FunctionRole role) {
#define MT_SAME_ROLE(ir, inPlan)                                                                   \
  static_assert(static_cast<int>(FunctionRole::ir) == plan::Function::inPlan,                      \
                "mt.role and plan.Function.Role number " #ir " differently");
  MT_SAME_ROLE(forward, FORWARD)
  MT_SAME_ROLE(train_step, TRAIN_STEP)
  MT_SAME_ROLE(eval, EVAL)
  MT_SAME_ROLE(accumulate, ACCUMULATE)
  MT_SAME_ROLE(grad_sq_norm, GRAD_SQ_NORM)
  MT_SAME_ROLE(optimizer, OPTIMIZER)
  MT_SAME_ROLE(prefill, PREFILL)
  MT_SAME_ROLE(decode, DECODE)
  MT_SAME_ROLE(encode, ENCODE)
#undef MT_SAME_ROLE
  static_assert(plan::Function::Role_MAX == static_cast<int>(FunctionRole::encode),
                "a role the IR does not have");
  return static_cast<plan::Function::Role>(role);
}

/// The runtime's name of a step function's buffer (mt-build-optimizer's
/// `mt.buffer`).
std::string bufferName(BufferAttr b) {
  std::string param = b.getParam() ? b.getParam().getValue().str() : std::string();
  switch (b.getRole()) {
  case BufferRole::param:
    return param;
  case BufferRole::param_shard:
    return buffers::of(Role::ParamShard, param);
  case BufferRole::gradient:
    return buffers::of(Role::Gradient, param);
  case BufferRole::grad_accumulator:
    return buffers::of(Role::GradAccumulator, param);
  case BufferRole::grad_shard:
    return buffers::of(Role::GradShard, param);
  case BufferRole::grad_square:
    return buffers::of(Role::GradSquare, param);
  case BufferRole::exp_avg:
    return buffers::of(Role::ExpAvg, param);
  case BufferRole::exp_avg_sq:
    return buffers::of(Role::ExpAvgSq, param);
  case BufferRole::hyper:
    return std::string(buffers::kHyper);
  }
  llvm_unreachable("a buffer role without a name");
}

/// Names of a function's inputs: parameters by name, batch inputs by their
/// mt.batch role, step functions' buffers by their mt.buffer, the rest by
/// what they are to the pipeline.
std::string inputName(func::FuncOp fn, unsigned i, FunctionRole role) {
  if (auto p = fn.getArgAttrOfType<ParamAttr>(i, kParamAttrName))
    return p.getName().str();
  if (auto b = fn.getArgAttrOfType<BufferAttr>(i, kBufferAttrName))
    return bufferName(b);
  if (auto b = fn.getArgAttrOfType<StringAttr>(i, "mt.batch"))
    return buffers::batch(role == FunctionRole::decode &&
                                  (b.getValue() == "tokens" || b.getValue() == "decoder_tokens")
                              ? buffers::kNextToken
                              : std::string_view(b.getValue()));
  if (auto cache = fn.getArgAttrOfType<StringAttr>(i, kKvCacheAttrName))
    return buffers::kvCache(cache.getValue().str());
  if (auto saved = fn.getArgAttrOfType<IntegerAttr>(i, kSavedAttrName))
    return buffers::saved(saved.getInt());
  if (auto acc = fn.getArgAttrOfType<StringAttr>(i, kAccumulatorOfAttrName))
    return buffers::of(Role::GradAccumulator, acc.getValue().str());
  // Pipeline stages: the previous stage's activation, and (gradient
  // function) the cotangent of this stage's output from the next stage.
  if (fn.getArgAttr(i, kStageInputAttrName))
    return std::string(buffers::kStageInput);
  if (fn.getArgAttr(i, kCotangentAttrName))
    return std::string(buffers::kStageOutputGrad);
  return "arg" + std::to_string(i);
}

std::string outputName(func::FuncOp fn, unsigned i, FunctionRole role) {
  if (auto b = fn.getResultAttrOfType<BufferAttr>(i, kBufferAttrName))
    return bufferName(b);
  if (auto g = fn.getResultAttrOfType<StringAttr>(i, kGradOfAttrName))
    return buffers::of(Role::Gradient, g.getValue().str());
  if (auto saved = fn.getResultAttrOfType<IntegerAttr>(i, kSavedAttrName))
    return buffers::saved(saved.getInt());
  if (fn.getResultAttr(i, kStageInputGradAttrName))
    return std::string(buffers::kStageInputGrad);
  if (auto m = fn.getResultAttrOfType<StringAttr>(i, kMetricAttrName))
    return buffers::metric(m.getValue().str());
  if (auto cache = fn.getResultAttrOfType<StringAttr>(i, kKvCacheAttrName))
    return buffers::kvCache(cache.getValue().str());
  if (role == FunctionRole::prefill)
    return std::string(buffers::kLogits);
  if (role == FunctionRole::decode)
    return std::string(buffers::kNextLogits);
  if (role == FunctionRole::forward || role == FunctionRole::train_step ||
      role == FunctionRole::eval)
    return std::string(cast<RankedTensorType>(fn.getResultTypes()[i]).getRank() == 0
                           ? buffers::kLoss
                           : buffers::kStageOutput);
  return "result" + std::to_string(i);
}

/// The model (or pipeline stage) function `fn` belongs to.
func::FuncOp ownerOf(ModuleOp module, func::FuncOp fn) {
  if (isModelFunction(fn))
    return fn;
  for (StringRef attr : {kModelAttrName, kGradientOfAttrName})
    if (auto ref = fn->getAttrOfType<FlatSymbolRefAttr>(attr))
      return module.lookupSymbol<func::FuncOp>(ref.getValue());
  return {};
}

/// Stage buffers are prefixed "s<k>/" in a pipelined plan; the batch, the
/// loss and the optimizer's hyper-parameters are shared by every stage.
std::string stageName(const std::string &name, int64_t stage, bool pipelined) {
  return buffers::staged(name, stage, pipelined);
}

int64_t stageOf(func::FuncOp fn) {
  auto a = fn->getAttrOfType<IntegerAttr>(kStageAttrName);
  return a ? a.getInt() : 0;
}

} // namespace

/// The model's batch shape, vocabulary and global parameter table (with
/// each pipeline stage's share) from its model functions.
bool describeModel(ArrayRef<func::FuncOp> models, int64_t tensorParallel, bool pipelined,
                   plan::Plan &out, plan::Config &config, std::string &error) {
  // The global parameter table, in first-use order; stacked parameters
  // grow by the layers of each stage.
  std::vector<std::string> order;
  std::map<std::string, plan::Parameter> global;
  for (func::FuncOp model : models) {
    for (unsigned i = 0; i < model.getNumArguments(); ++i) {
      if (model.getArgAttr(i, kParamAttrName) || model.getArgAttr(i, kStageInputAttrName) ||
          model.getArgAttr(i, kKvCacheAttrName))
        continue;
      auto batch = model.getArgAttrOfType<StringAttr>(i, "mt.batch");
      if (!batch) {
        error = "argument " + std::to_string(i) + " of @" + model.getSymName().str() +
                " is neither a parameter nor a batch input: mark it {mt.batch = \"tokens\"}, "
                "\"labels\" or \"loss_mask\"";
        return false;
      }
      auto t = cast<RankedTensorType>(model.getArgument(i).getType());
      auto sequence = model.getArgAttrOfType<StringAttr>(i, kSequenceAttrName);
      if (sequence && sequence.getValue() == "decoder") {
        config.set_decoder_seq_length(t.getDimSize(1));
      } else if (batch.getValue() == "tokens" || batch.getValue() == "labels") {
        config.set_micro_batch_size(t.getDimSize(0));
        config.set_seq_length(t.getRank() > 1 ? t.getDimSize(1) : 1);
      }
    }
    // The vocabulary is the widest loss's (BERT's sentence-order loss has 2
    // classes beside the masked-LM loss over the vocabulary).
    auto vocabulary = [&](int64_t padded, int64_t real) {
      if (padded < config.padded_vocab_size())
        return;
      config.set_padded_vocab_size(padded);
      config.set_vocab_size(real);
    };
    model.walk([&](CrossEntropyOp loss) {
      int64_t classes = cast<RankedTensorType>(loss.getLogits().getType()).getShape().back();
      vocabulary(classes, loss.getNumClassesAttr() ? loss.getNumClassesAttr().getInt() : classes);
    });
    model.walk([&](VocabParallelStatsOp loss) { // the logits are a 1/tp piece
      int64_t classes = cast<RankedTensorType>(loss.getLogits().getType()).getShape().back();
      vocabulary(classes * tensorParallel, loss.getNumClassesAttr().getInt());
    });
    // Inference functions return the logits the loss would read.
    if (roleOf(model) == FunctionRole::prefill) {
      int64_t classes = cast<RankedTensorType>(model.getResultTypes()[0]).getShape().back();
      config.set_padded_vocab_size(classes);
      config.set_vocab_size(classes);
      for (const ParamInfo &p : collectParams(model))
        if (auto rows = model.getArgAttrOfType<IntegerAttr>(p.argNumber, kUnpaddedRowsAttrName))
          if (p.type.getDimSize(0) == classes ||
              p.type.getDimSize(0) * tensorParallel == classes) // a rank's rows
            config.set_vocab_size(rows.getInt());
    }
    plan::Stage *stage = pipelined ? out.add_stages() : nullptr;
    if (stage)
      stage->set_index(stageOf(model));
    for (const ParamInfo &p : collectParams(model)) {
      auto first = model.getArgAttrOfType<IntegerAttr>(p.argNumber, kFirstLayerAttrName);
      int64_t begin = first ? first.getInt() : 0;
      int64_t end = first ? begin + p.type.getDimSize(0) : 0;
      if (stage) {
        plan::StageParameter &sp = *stage->add_parameters();
        sp.set_name(p.name);
        sp.set_layer_begin(begin);
        sp.set_layer_end(end);
      }
      auto [it, added] = global.try_emplace(p.name);
      plan::Parameter &param = it->second;
      if (added) {
        order.push_back(p.name);
        param.set_name(p.name);
        for (int64_t d : p.type.getShape())
          param.add_shape(d);
        // A tensor-parallel shard: the global shape is tp pieces.
        if (auto sharding = model.getArgAttrOfType<ShardingAttr>(p.argNumber, kShardingAttrName)) {
          for (unsigned d = 0; d < sharding.getDims().size(); ++d)
            if (!sharding.getDimAxes(d).empty()) {
              param.set_shape(d, param.shape(d) * tensorParallel);
              param.mutable_tp_shard()->set_dim(d);
            }
          auto segments = model.getArgAttrOfType<IntegerAttr>(p.argNumber, kSegmentsAttrName);
          param.mutable_tp_shard()->set_segments(segments ? segments.getInt() : 1);
        }
        param.set_dtype(dtypeOf(p.type.getElementType()));
        param.mutable_init()->set_kind(p.attr.getInit() == InitKind::normal  ? plan::Init::NORMAL
                                       : p.attr.getInit() == InitKind::zeros ? plan::Init::ZEROS
                                                                             : plan::Init::ONES);
        param.mutable_init()->set_std(p.attr.getStd().convertToDouble());
        param.set_weight_decay(p.decays());
        if (auto rows = model.getArgAttrOfType<IntegerAttr>(p.argNumber, kUnpaddedRowsAttrName))
          param.set_unpadded_rows(rows.getInt());
      }
      if (first) {
        param.set_shape(0, std::max<int64_t>(added ? end : param.shape(0), end));
        param.set_stacked_layers(param.shape(0));
      }
    }
  }
  for (const std::string &name : order)
    *out.add_parameters() = global[name];

  return true;
}

/// Every compiled function: its role, stage, collectives, and its inputs
/// and outputs by buffer name.
/// The slices the function's mt.gradient_ready signals say are final, by
/// signal index (its inputs are described already).
void describeGradientsReady(func::FuncOp fn, plan::Function &f) {
  fn.walk([&](GradientReadyOp ready) {
    auto type = cast<RankedTensorType>(ready.getValue().getType());
    int64_t count = type.getNumElements(), offset = 0;
    if (auto layer = ready.getLayerAttr()) {
      count /= type.getDimSize(0);
      offset = layer.getInt() * count;
    }
    auto index = static_cast<int>(ready.getIndex());
    while (f.gradients_ready_size() <= index)
      f.add_gradients_ready();
    plan::GradientSlice &slice = *f.mutable_gradients_ready(index);
    slice.set_accumulator(f.inputs(static_cast<int>(ready.getAccumulator())).name());
    slice.set_offset(offset);
    slice.set_count(count);
  });
}

bool describeFunctions(ModuleOp module, bool pipelined, plan::Plan &out, std::string &error) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    std::optional<FunctionRole> role = roleOf(fn);
    if (!role)
      continue;
    func::FuncOp owner = ownerOf(module, fn);
    if (!owner) {
      error = "cannot tell which model @" + fn.getSymName().str() + " belongs to";
      return false;
    }
    int64_t stage = stageOf(owner);
    plan::Function &f = *out.add_functions();
    f.set_name(fn.getSymName().str());
    f.set_role(planRole(*role));
    f.set_code_object("native");
    f.set_stage(stage);
    countCollectives(module, fn, f);
    // Gradients left as partial sums: the runtime completes them per step.
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      auto of = fn.getResultAttrOfType<StringAttr>(i, kGradOfAttrName);
      auto over = fn.getResultAttrOfType<ArrayAttr>(i, kPartialOverAttrName);
      if (!of || !over)
        continue;
      for (plan::Parameter &p : *out.mutable_parameters())
        if (p.name() == of.getValue() && p.grad_partial_over_size() == 0)
          for (Attribute axis : over) {
            StringRef name = cast<StringAttr>(axis).getValue();
            std::optional<plan::MeshAxis> a =
                meshAxisNamed(std::string_view(name.data(), name.size()));
            if (!a) {
              error = "the gradient of '" + p.name() + "' is a partial sum over '" + name.str() +
                      "', which is not an axis of the plan's mesh (pp, dp, tp)";
              return false;
            }
            p.add_grad_partial_over(*a);
          }
    }
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      fillSpec(*f.add_inputs(), stageName(inputName(fn, i, *role), stage, pipelined),
               fn.getArgument(i).getType());
    describeGradientsReady(fn, f);
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      // Written over an input: no output of its own.
      if (auto arg = fn.getResultAttrOfType<IntegerAttr>(i, kInPlaceOfAttrName)) {
        f.add_updated_in_place(f.inputs(static_cast<int>(arg.getInt())).name());
        continue;
      }
      fillSpec(*f.add_outputs(), stageName(outputName(fn, i, *role), stage, pipelined),
               fn.getResultTypes()[i]);
    }
  }
  return true;
}

bool describePlan(ModuleOp module, plan::Plan &out, std::string &error) {
  auto models = modelFunctions(module);
  if (models.empty()) {
    error = "the module has no model function";
    return false;
  }
  // One model, or the pipeline stages of one model.
  bool pipelined = models.front()->hasAttr(kStageAttrName);
  std::string modelName =
      pipelined ? models.front()->getAttrOfType<StringAttr>(kPipelineOfAttrName).getValue().str()
                : models.front().getSymName().str();
  if (!pipelined && models.size() != 1) {
    error = "a plan holds exactly one model function, found " + std::to_string(models.size());
    return false;
  }
  out.set_format_version(kPlanFormatVersion);
  out.set_producer("mtc (mt plan format " + std::to_string(kPlanFormatVersion) + ")");
  plan::Config &config = *out.mutable_config();
  config.set_model(modelName);

  // The tensor-parallel size, from the mesh mt-partition-tensor-parallel declares.
  int64_t tensorParallel = 1;
  for (auto mesh : module.getOps<MeshOp>())
    if (auto size = mesh.getAxisSize("tp"))
      tensorParallel = *size;

  return describeModel(models, tensorParallel, pipelined, out, config, error) &&
         describeFunctions(module, pipelined, out, error);
}

bool describeInferencePlan(ModuleOp module, const std::string &modelName, int64_t tensorParallel,
                           plan::Plan &out, std::string &error) {
  func::FuncOp prefill, decode, encode;
  for (auto fn : module.getOps<func::FuncOp>())
    if (std::optional<FunctionRole> role = roleOf(fn))
      (*role == FunctionRole::prefill  ? prefill
       : *role == FunctionRole::encode ? encode
                                       : decode) = fn;
  if (!prefill || !decode) {
    error = "the module has no prefill and decode functions (mt-build-inference)";
    return false;
  }
  out.set_format_version(kPlanFormatVersion);
  out.set_producer("mtc (mt plan format " + std::to_string(kPlanFormatVersion) + ")");
  plan::Config &config = *out.mutable_config();
  config.set_model(modelName);
  // An encoder-decoder's encoder parameters are the encode function's.
  SmallVector<func::FuncOp> models{prefill};
  if (encode)
    models.insert(models.begin(), encode);
  return describeModel(models, tensorParallel, /*pipelined=*/false, out, config, error) &&
         describeFunctions(module, /*pipelined=*/false, out, error);
}

bool checkTrainable(const plan::Plan &plan, std::string &error) {
  for (const plan::Parameter &p : plan.parameters())
    if (p.dtype() != plan::F32 && p.dtype() != plan::F64) {
      error = "parameter '" + p.name() + "' is " + plan::DType_Name(p.dtype()) +
              ": training keeps parameters in f32 or f64 (write the model in f32 and compile "
              "with --bf16 for 16-bit compute; --report-memory and --memory-budget accept "
              "16-bit models)";
      return false;
    }
  return true;
}

} // namespace mt
