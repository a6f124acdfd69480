//===- VerifyPlan.cpp - what every plan must satisfy -----------------------===//
#include "mt/Plan/VerifyPlan.h"

#include "mt/Plan/BufferNames.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/Abi.h"
#include "mt/Support/Errors.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <vector>

namespace mt {
namespace {

using llvm::Error;
using llvm::formatv;

/// Sizes beyond these are corruption, not models: they keep every product
/// the runtime computes (elements, bytes, ranks) far from overflow.
constexpr int64_t kMaxAxisSize = 1 << 16;
constexpr int64_t kMaxRanks = 1 << 20;
constexpr int64_t kMaxElements = int64_t(1) << 48;

template <typename... Ts> Error corrupt(const char *fmt, Ts &&...values) {
  return errorf("the plan is corrupt: {0}", formatv(fmt, std::forward<Ts>(values)...).str());
}

Error checkShape(const google::protobuf::RepeatedField<int64_t> &shape, const std::string &what,
                 bool allowEmptyDims) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < (allowEmptyDims ? 0 : 1) || d > kMaxElements)
      return corrupt("{0} has a dimension of size {1}", what, d);
    if (d > 0 && elements > kMaxElements / d)
      return corrupt("{0} has more than 2^48 elements", what);
    elements *= d;
  }
  return Error::success();
}

Error checkLayout(const plan::Plan &plan) {
  const plan::Parallelism &p = plan.config().parallel();
  int64_t ranks = 1;
  for (auto [name, size] : {std::pair<const char *, int64_t>{"tensor", p.tensor_parallel_size()},
                            {"pipeline", p.pipeline_parallel_size()},
                            {"data", p.data_parallel_size()},
                            {"virtual stage", p.virtual_stages()}}) {
    if (size < 0 || size > kMaxAxisSize)
      return corrupt("its {0}-parallel size is {1}", name, size);
    ranks *= std::max<int64_t>(size, 1);
  }
  if (ranks > kMaxRanks)
    return corrupt("its layout needs {0} ranks", ranks);
  int64_t stages =
      std::max<int64_t>(p.pipeline_parallel_size(), 1) * std::max<int64_t>(p.virtual_stages(), 1);
  if (std::max(plan.stages_size(), 1) != stages)
    return corrupt("it has {0} pipeline stages but its layout asks for {1} x {2}",
                   std::max(plan.stages_size(), 1),
                   std::max<int64_t>(p.pipeline_parallel_size(), 1),
                   std::max<int64_t>(p.virtual_stages(), 1));
  std::vector<bool> seen(plan.stages_size(), false);
  for (const plan::Stage &s : plan.stages()) {
    if (s.index() < 0 || s.index() >= plan.stages_size() || seen[s.index()])
      return corrupt("stage {0} is out of range or listed twice ({1} stages)", s.index(),
                     plan.stages_size());
    seen[s.index()] = true;
  }
  return Error::success();
}

/// `inference`: a plan of mtc --inference, which trains nothing.
Error checkBatch(const plan::Config &c, bool inference) {
  int64_t dp = std::max<int64_t>(c.parallel().data_parallel_size(), 1);
  if (c.micro_batch_size() < 1 || c.seq_length() < 1 || c.global_batch_size() < 1 ||
      (c.train_iters() < 1 && !inference) || c.micro_batch_size() > kMaxElements / c.seq_length() ||
      c.global_batch_size() % (c.micro_batch_size() * dp) != 0)
    return corrupt("its batch configuration is inconsistent (micro-batch {0}, sequence {1}, "
                   "global batch {2}, data-parallel {3}, iterations {4})",
                   c.micro_batch_size(), c.seq_length(), c.global_batch_size(), dp,
                   c.train_iters());
  if (c.decoder_seq_length() < 0 ||
      c.micro_batch_size() > kMaxElements / std::max<int64_t>(c.decoder_seq_length(), 1))
    return corrupt("its decoder sequence length {0} is impossible", c.decoder_seq_length());
  if (c.vocab_size() < 0 || c.padded_vocab_size() < c.vocab_size())
    return corrupt("its vocabulary of {0} is padded to {1} rows", c.vocab_size(),
                   c.padded_vocab_size());
  return Error::success();
}

Error checkParameters(const plan::Plan &plan, llvm::StringMap<const plan::Parameter *> &byName) {
  for (const plan::Parameter &p : plan.parameters()) {
    std::string what = "parameter '" + p.name() + "'";
    if (p.name().empty() || !byName.try_emplace(p.name(), &p).second)
      return corrupt("{0} is unnamed or named twice", what);
    // The trainer initializes, updates and checkpoints parameters in fp32
    // or f64; 16-bit storage would be written past its end.
    if (p.dtype() != plan::F32 && p.dtype() != plan::F64)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "parameter '%s' is stored in %s: mt-run trains parameters in F32 or F64 (write the "
          "model in f32; 16-bit compute keeps fp32 main parameters)",
          p.name().c_str(), plan::DType_Name(p.dtype()).c_str());
    if (Error e = checkShape(p.shape(), what, /*allowEmptyDims=*/false))
      return e;
    int64_t rank = p.shape_size();
    if (p.stacked_layers() < 0 ||
        (p.stacked_layers() > 0 && (rank == 0 || p.shape(0) != p.stacked_layers())))
      return corrupt("{0} stacks {1} layers but has shape of rank {2}", what, p.stacked_layers(),
                     rank);
    if (p.has_tp_shard() &&
        (p.tp_shard().dim() < 0 || p.tp_shard().dim() >= rank || p.tp_shard().segments() < 0))
      return corrupt("{0} is split along dimension {1} of {2}", what, p.tp_shard().dim(), rank);
    // The runtime completes a replicated parameter's tensor-parallel
    // partial sums; nothing else sums parameter gradients.
    for (int axis : p.grad_partial_over())
      if (axis != plan::TP || p.has_tp_shard())
        return corrupt("{0} has a partial gradient over '{1}'; only parameters replicated over "
                       "tp can have one, over tp",
                       what, std::string(nameOf(plan::MeshAxis(axis))));
    if (p.unpadded_rows() < 0 ||
        (p.unpadded_rows() > 0 && (rank == 0 || p.unpadded_rows() > p.shape(0))))
      return corrupt("{0} has {1} unpadded rows", what, p.unpadded_rows());
  }
  return Error::success();
}

Error checkTensorSpecs(const plan::Function &f) {
  for (const auto *specs : {&f.inputs(), &f.outputs()})
    for (const plan::TensorSpec &t : *specs) {
      std::string what = "function " + f.name() + "'s tensor '" + t.name() + "'";
      if (t.name().empty() || t.dtype() == plan::DTYPE_UNSPECIFIED ||
          !plan::DType_IsValid(t.dtype()))
        return corrupt("{0} has no name or no element type", what);
      if (Error e = checkShape(t.shape(), what, /*allowEmptyDims=*/true))
        return e;
    }
  return Error::success();
}

/// Buffers whose layout the runtime assumes (mt/Runtime/Abi.h): the
/// optimizer's hyper-parameter slots, and the activations and gradients
/// that cross between pipeline stages (floating-point).
Error checkRuntimeBuffer(const plan::TensorSpec &t) {
  std::string_view kind = buffers::unstaged(t.name());
  if (kind == buffers::kHyper &&
      (t.dtype() != plan::F32 || t.shape_size() != 1 || t.shape(0) != MT_ABI_HYPER_COUNT))
    return corrupt("its optimizer hyper-parameters are not F32 [{0}]", int(MT_ABI_HYPER_COUNT));
  bool crossesStages = kind == buffers::kStageInput || kind == buffers::kStageOutput ||
                       kind == buffers::kStageInputGrad || kind == buffers::kStageOutputGrad;
  if (crossesStages && t.dtype() != plan::F32 && t.dtype() != plan::F64 &&
      t.dtype() != plan::BF16 && t.dtype() != plan::F16)
    return corrupt("its pipeline-stage buffer '{0}' is {1}; stages exchange floating point",
                   t.name(), plan::DType_Name(t.dtype()));
  return Error::success();
}

Error checkFunctions(const plan::Plan &plan, bool &takesLossScale) {
  llvm::StringSet<> code;
  for (const plan::CodeObject &c : plan.code())
    code.insert(c.name());
  int64_t stages = std::max(plan.stages_size(), 1);
  // The runtime gives each name one buffer: every use agrees on what it is.
  llvm::StringMap<const plan::TensorSpec *> buffersByName;
  for (const plan::Function &f : plan.functions()) {
    if (f.name().empty() || f.role() == plan::Function::ROLE_UNSPECIFIED ||
        !plan::Function::Role_IsValid(f.role()))
      return corrupt("function '{0}' has the unknown role {1}", f.name(), int(f.role()));
    if (f.stage() < 0 || f.stage() >= stages)
      return corrupt("function {0} belongs to stage {1} of {2}", f.name(), f.stage(), stages);
    if (!f.code_object().empty() && !code.contains(f.code_object()))
      return corrupt("function {0} is in code object '{1}', which the plan does not have", f.name(),
                     f.code_object());
    if (f.arena_bytes() < 0 || f.arena_bytes() > kMaxElements)
      return corrupt("function {0} asks for an arena of {1} bytes", f.name(), f.arena_bytes());
    if (Error e = checkTensorSpecs(f))
      return e;
    for (const plan::CollectiveVolume &cv : f.collectives())
      for (int axis : cv.axes())
        if (axis == plan::MESH_AXIS_UNSPECIFIED || !plan::MeshAxis_IsValid(axis))
          return corrupt("function {0} counts a collective over an axis the mesh does not have",
                         f.name());
    for (const auto *specs : {&f.inputs(), &f.outputs()})
      for (const plan::TensorSpec &t : *specs) {
        const plan::TensorSpec *&seen = buffersByName[t.name()];
        if (!seen)
          seen = &t;
        else if (seen->dtype() != t.dtype() ||
                 !std::equal(seen->shape().begin(), seen->shape().end(), t.shape().begin(),
                             t.shape().end()))
          return corrupt("buffer '{0}' has two shapes or element types (function {1})", t.name(),
                         f.name());
        if (Error e = checkRuntimeBuffer(t))
          return e;
      }
    for (const plan::TensorSpec &in : f.inputs()) {
      if (in.name() == buffers::batch("loss_mask") && in.dtype() != plan::F32 &&
          in.dtype() != plan::F64)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "function %s takes the loss mask in %s: mt-run fills it "
                                       "in F32 or F64",
                                       f.name().c_str(), plan::DType_Name(in.dtype()).c_str());
      if (in.name() == buffers::batch("loss_scale"))
        takesLossScale = true;
    }
  }
  return Error::success();
}

bool sameSpecs(const google::protobuf::RepeatedPtrField<plan::TensorSpec> &a,
               const google::protobuf::RepeatedPtrField<plan::TensorSpec> &b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const plan::TensorSpec &x, const plan::TensorSpec &y) {
                      return x.dtype() == y.dtype() &&
                             std::equal(x.shape().begin(), x.shape().end(), y.shape().begin(),
                                        y.shape().end());
                    });
}

/// The slices a step says are final lie within inputs of the step: the
/// runtime reduces them in place.
Error checkGradientSlices(const plan::Function &f) {
  for (const plan::GradientSlice &g : f.gradients_ready()) {
    auto in = std::find_if(f.inputs().begin(), f.inputs().end(),
                           [&](const plan::TensorSpec &t) { return t.name() == g.accumulator(); });
    int64_t elements = 1;
    if (in != f.inputs().end())
      for (int64_t d : in->shape())
        elements *= d;
    if (in == f.inputs().end() || g.offset() < 0 || g.count() <= 0 ||
        g.offset() > elements - g.count())
      return corrupt("function {0} says elements [{1}, +{2}) of '{3}' are final, which is not "
                     "within one of its inputs",
                     f.name(), g.offset(), g.count(), g.accumulator());
  }
  return Error::success();
}

/// A function that runs another's code (mt-share-stage-programs) passes it
/// buffers of the very shapes that code was compiled for.
Error checkSharedCode(const plan::Plan &plan) {
  llvm::StringMap<const plan::Function *> byName;
  for (const plan::Function &f : plan.functions())
    byName[f.name()] = &f;
  for (const plan::Function &f : plan.functions()) {
    if (Error e = checkGradientSlices(f))
      return e;
    bool takesOffset = std::any_of(f.inputs().begin(), f.inputs().end(), [](const auto &t) {
      return buffers::unstaged(t.name()) == buffers::kLayerOffset;
    });
    for (const plan::TensorSpec &t : f.inputs())
      if (buffers::unstaged(t.name()) == buffers::kLayerOffset &&
          (t.dtype() != plan::I64 || t.shape_size() != 0))
        return corrupt("function {0}'s layer offset is not an i64 scalar", f.name());
    if (!takesOffset && f.layer_offset() != 0)
      return corrupt("function {0} has layer offset {1} but no input to take it", f.name(),
                     f.layer_offset());
    if (f.entry().empty())
      continue;
    const plan::Function *code = byName.lookup(f.entry());
    if (!code || !code->entry().empty())
      return corrupt("function {0} runs the code of '{1}', which is not a function with code "
                     "of its own in the plan",
                     f.name(), f.entry());
    if (code->role() != f.role() || code->code_object() != f.code_object() ||
        code->arena_bytes() != f.arena_bytes() || !sameSpecs(code->inputs(), f.inputs()) ||
        !sameSpecs(code->outputs(), f.outputs()) ||
        code->updated_in_place_size() != f.updated_in_place_size())
      return corrupt("function {0} runs the code of {1} but differs from it in role, code "
                     "object, arena or the shapes of its inputs and outputs",
                     f.name(), f.entry());
  }
  return Error::success();
}

Error checkStages(const plan::Plan &plan, const llvm::StringMap<const plan::Parameter *> &byName) {
  for (const plan::Stage &s : plan.stages())
    for (const plan::StageParameter &sp : s.parameters()) {
      const plan::Parameter *p = byName.lookup(sp.name());
      if (!p)
        return corrupt("stage {0} holds parameter '{1}', which the plan does not have", s.index(),
                       sp.name());
      int64_t layers = p->stacked_layers();
      if (layers > 0 &&
          (sp.layer_begin() < 0 || sp.layer_end() > layers || sp.layer_begin() > sp.layer_end()))
        return corrupt("stage {0} holds layers [{1}, {2}) of '{3}', which has {4}", s.index(),
                       sp.layer_begin(), sp.layer_end(), sp.name(), layers);
    }
  return Error::success();
}

Error checkLossScaling(const plan::LossScaling &ls, bool scaled) {
  if (scaled == (ls.initial_scale() > 0) &&
      (!scaled || (ls.min_scale() > 0 && ls.min_scale() <= ls.initial_scale() && ls.window() >= 0 &&
                   ls.hysteresis() >= 1)))
    return Error::success();
  return corrupt("its loss scaling (initial {0}, min {1}, window {2}, hysteresis {3}) does not "
                 "match its functions ({4} a loss scale)",
                 ls.initial_scale(), ls.min_scale(), ls.window(), ls.hysteresis(),
                 scaled ? "which take" : "which do not take");
}

} // namespace

Error verifyPlan(const plan::Plan &plan) {
  llvm::StringMap<const plan::Parameter *> params;
  bool scaled = false;
  if (Error e = checkLayout(plan))
    return e;
  bool inference =
      std::any_of(plan.functions().begin(), plan.functions().end(),
                  [](const plan::Function &f) { return f.role() == plan::Function::PREFILL; });
  if (Error e = checkBatch(plan.config(), inference))
    return e;
  if (Error e = checkParameters(plan, params))
    return e;
  if (Error e = checkFunctions(plan, scaled))
    return e;
  if (Error e = checkSharedCode(plan))
    return e;
  if (Error e = checkStages(plan, params))
    return e;
  return checkLossScaling(plan.config().loss_scaling(), scaled);
}

} // namespace mt
