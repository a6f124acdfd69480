//===- PlanEnums.cpp - the plan's closed sets by name ----------------------===//
#include "mt/Plan/PlanEnums.h"

#include <utility>

namespace mt {
namespace {

template <typename E> using Names = std::initializer_list<std::pair<E, std::string_view>>;

using plan::CollectiveVolume;
using plan::Function;
using plan::ModelArchitecture;
using plan::Optimizer;
using plan::Parallelism;

const Names<Function::Role> kRoles = {{Function::FORWARD, "forward"},
                                      {Function::TRAIN_STEP, "train_step"},
                                      {Function::EVAL, "eval"},
                                      {Function::ACCUMULATE, "accumulate"},
                                      {Function::GRAD_SQ_NORM, "grad_sq_norm"},
                                      {Function::OPTIMIZER, "optimizer"},
                                      {Function::PREFILL, "prefill"},
                                      {Function::DECODE, "decode"},
                                      {Function::ENCODE, "encode"}};
const Names<Parallelism::Schedule> kSchedules = {{Parallelism::ONE_F_ONE_B, "1f1b"},
                                                 {Parallelism::INTERLEAVED, "interleaved"}};
const Names<Optimizer::LrDecayStyle> kDecayStyles = {{Optimizer::CONSTANT, "constant"},
                                                     {Optimizer::LINEAR, "linear"},
                                                     {Optimizer::COSINE, "cosine"}};
const Names<ModelArchitecture::Positions> kPositions = {{ModelArchitecture::LEARNED, "learned"},
                                                        {ModelArchitecture::ROTARY, "rotary"},
                                                        {ModelArchitecture::ALIBI, "alibi"},
                                                        {ModelArchitecture::RELATIVE, "relative"},
                                                        {ModelArchitecture::NO_POSITIONS, "none"}};
const Names<ModelArchitecture::Norm> kNorms = {{ModelArchitecture::LAYER_NORM, "layer_norm"},
                                               {ModelArchitecture::RMS_NORM, "rms_norm"}};
const Names<ModelArchitecture::Activation> kActivations = {
    {ModelArchitecture::GELU_TANH, "gelu_tanh"},
    {ModelArchitecture::GELU, "gelu"},
    {ModelArchitecture::SILU, "silu"},
    {ModelArchitecture::RELU, "relu"}};
const Names<CollectiveVolume::Kind> kCollectives = {
    {CollectiveVolume::ALL_REDUCE, "all_reduce"},
    {CollectiveVolume::ALL_GATHER, "all_gather"},
    {CollectiveVolume::REDUCE_SCATTER, "reduce_scatter"}};

const Names<plan::MeshAxis> kMeshAxes = {{plan::PP, "pp"}, {plan::DP, "dp"}, {plan::TP, "tp"}};

template <typename E> std::string_view find(const Names<E> &names, E value) {
  for (const auto &[v, name] : names)
    if (v == value)
      return name;
  return "unspecified";
}

template <typename E> std::optional<E> find(const Names<E> &names, std::string_view name) {
  for (const auto &[v, n] : names)
    if (n == name)
      return v;
  return std::nullopt;
}

/// Sets `field` from the legacy string (when the enum is unset), then
/// clears the string.
template <typename E, typename Set>
void upgrade(const Names<E> &names, E current, std::string *legacy, Set set) {
  if (legacy->empty())
    return;
  if (static_cast<int>(current) == 0)
    if (auto v = find(names, std::string_view(*legacy)))
      set(*v);
  legacy->clear();
}

} // namespace

std::string_view nameOf(Function::Role role) { return find(kRoles, role); }
std::string_view nameOf(Parallelism::Schedule schedule) { return find(kSchedules, schedule); }
std::string_view nameOf(Optimizer::LrDecayStyle style) { return find(kDecayStyles, style); }
std::string_view nameOf(ModelArchitecture::Positions positions) {
  return find(kPositions, positions);
}
std::string_view nameOf(ModelArchitecture::Norm norm) { return find(kNorms, norm); }
std::string_view nameOf(ModelArchitecture::Activation activation) {
  return find(kActivations, activation);
}
std::string_view nameOf(CollectiveVolume::Kind kind) { return find(kCollectives, kind); }
std::string_view nameOf(plan::MeshAxis axis) { return find(kMeshAxes, axis); }
std::optional<plan::MeshAxis> meshAxisNamed(std::string_view name) { return find(kMeshAxes, name); }

std::string_view activationTypeName(plan::DType type) {
  return type == plan::BF16 ? "bf16" : type == plan::F16 ? "f16" : "f32";
}

std::optional<CollectiveVolume::Kind> collectiveKindNamed(std::string_view name) {
  return find(kCollectives, name);
}

/// The activation type a legacy name ("f32", "bf16", "f16") stands for.
static std::optional<plan::DType> activationTypeNamed(std::string_view name) {
  for (plan::DType t : {plan::F32, plan::BF16, plan::F16})
    if (activationTypeName(t) == name)
      return t;
  return std::nullopt;
}

void upgradeLegacyConfig(plan::Config &c) {
  Optimizer &o = *c.mutable_optimizer();
  upgrade(kDecayStyles, o.lr_decay_style(), o.mutable_legacy_lr_decay_style(),
          [&](Optimizer::LrDecayStyle v) { o.set_lr_decay_style(v); });
  Parallelism &p = *c.mutable_parallel();
  upgrade(kSchedules, p.schedule(), p.mutable_legacy_schedule(),
          [&](Parallelism::Schedule v) { p.set_schedule(v); });
  ModelArchitecture &a = *c.mutable_architecture();
  upgrade(kPositions, a.positions(), a.mutable_legacy_positions(),
          [&](ModelArchitecture::Positions v) { a.set_positions(v); });
  upgrade(kNorms, a.norm(), a.mutable_legacy_norm(),
          [&](ModelArchitecture::Norm v) { a.set_norm(v); });
  upgrade(kActivations, a.activation(), a.mutable_legacy_activation(),
          [&](ModelArchitecture::Activation v) { a.set_activation(v); });
  if (c.activation_type() == plan::DTYPE_UNSPECIFIED)
    if (auto type = activationTypeNamed(c.legacy_activation_type()))
      c.set_activation_type(*type);
  c.clear_legacy_activation_type();
}

} // namespace mt
