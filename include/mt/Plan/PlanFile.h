//===- PlanFile.h - reading and writing plan files -------------*- C++ -*-===//
#ifndef MT_PLAN_PLANFILE_H
#define MT_PLAN_PLANFILE_H

#include "plan.pb.h"

#include "mt/Sharding/MeshShape.h"

#include <string>

namespace mt {

/// Bumped whenever a change to plan.proto or to the meaning of its fields
/// would make an older runtime misread a newer plan (or the reverse).
// 2: every function takes an arena; 3: updates in place; 4: stages keep
// saved activations; 5: roles and other closed sets are enums.
inline constexpr uint64_t kPlanFormatVersion = 6;

/// Writes `plan` with its header to `path` (through a temporary file, so a
/// failed write never leaves a half-written plan). False with `error` set
/// on failure.
bool writePlanFile(const plan::Plan &plan, const std::string &path, std::string &error);

/// Reads and checks a plan file: magic, version, length, checksum, protobuf
/// payload. False with a precise `error` on any mismatch.
bool readPlanFile(const std::string &path, plan::Plan &plan, std::string &error);

/// A human-readable rendering of `plan` (code objects summarized by size and
/// checksum instead of their bytes).
std::string dumpPlan(const plan::Plan &plan);

/// Bytes of one element of `type`.
int64_t dtypeBytes(plan::DType type);

/// The plan's rank mesh: axes [pp, dp, tp], tp fastest (Megatron's order).
MeshShape planMesh(const plan::Config &config);

/// FNV-1a 64 of `data`.
uint64_t fnv1a64(const std::string &data);

} // namespace mt

#endif // MT_PLAN_PLANFILE_H
