//===- ParallelReport.h - what each rank of a plan holds and sends --*- C++ -*-===//
//
// Before anything runs: per rank, the pipeline stages it runs, its parameter
// and optimizer-state bytes, the bytes it sends per step by kind of
// communication, and the schedule's bubble fraction. Plain C++ over the plan.
//
//===----------------------------------------------------------------------===//
#ifndef MT_PLAN_PARALLELREPORT_H
#define MT_PLAN_PARALLELREPORT_H

#include "mt/Plan/PlanFile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// The report as text; false with `error` when the plan's layout is
/// inconsistent.
/// Per virtual stage, the parameter bytes one of its ranks holds (its
/// layers, its tensor-parallel shards); false with `error` on a stage that
/// names an unknown parameter.
bool stageParameterBytes(const plan::Plan &plan, std::vector<int64_t> &bytes, std::string &error);

/// With `gpusPerNode` > 0, each stage's sends are also split by link: inside
/// a node of that many GPUs or across nodes (ranks fill nodes in mesh order).
bool parallelReport(const plan::Plan &plan, std::string &out, std::string &error,
                    int64_t gpusPerNode = 0);

} // namespace mt

#endif // MT_PLAN_PARALLELREPORT_H
