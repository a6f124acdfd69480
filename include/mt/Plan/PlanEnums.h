//===- PlanEnums.h - the plan's closed sets by name -------------*- C++ -*-===//
//
// The plan stores roles, schedules and the model's kinds of norm, position
// and activation as proto enums (lib/Plan/plan.proto). These are the names
// the IR, mtc's options, reports and messages use for them, in one table
// each, and the upgrade of configurations written before the enums (they
// live on in checkpoints).
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_PLANENUMS_H
#define MT_PLAN_PLANENUMS_H

#include "plan.pb.h"

#include <optional>
#include <string_view>

namespace mt {

/// "train_step", "1f1b", "rms_norm", ...; "unspecified" for 0.
std::string_view nameOf(plan::Function::Role role);
std::string_view nameOf(plan::Parallelism::Schedule schedule);
std::string_view nameOf(plan::Optimizer::LrDecayStyle style);
std::string_view nameOf(plan::ModelArchitecture::Positions positions);
std::string_view nameOf(plan::ModelArchitecture::Norm norm);
std::string_view nameOf(plan::ModelArchitecture::Activation activation);
std::string_view nameOf(plan::CollectiveVolume::Kind kind);
/// The activation type's name: "f32" (also when unspecified), "bf16", "f16".
std::string_view nameOf(plan::MeshAxis axis);
std::string_view activationTypeName(plan::DType type);

/// The collective kind of an op name ("all_reduce", ...); nullopt for
/// another name.
std::optional<plan::CollectiveVolume::Kind> collectiveKindNamed(std::string_view name);
/// The axis the IR's mesh calls `name` ("pp", "dp", "tp").
std::optional<plan::MeshAxis> meshAxisNamed(std::string_view name);

/// Fills the enums of a configuration written before them (a checkpoint's
/// saved_from) from its legacy_* strings, and clears those.
void upgradeLegacyConfig(plan::Config &config);

} // namespace mt

#endif // MT_PLAN_PLANENUMS_H
