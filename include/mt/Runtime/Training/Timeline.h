//===- Timeline.h - pictures of an executed pipeline schedule --*- C++ -*-===//
//
// The forward and backward passes each pipeline stage ran, over time, as
// the figures of Narayanan et al. 2021 draw them: one row per stage, one box
// per (micro-batch, chunk) pass. Works for measured timelines (mt-run
// --timeline) and simulated ones (lib/Schedule).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_TIMELINE_H
#define MT_RUNTIME_TRAINING_TIMELINE_H

#include "mt/Schedule/PipelineSchedule.h"

#include <string>
#include <vector>

namespace mt {

/// One line per stage: its passes in order ("F3" forward of micro-batch 3,
/// "B3.1" backward of chunk 1), then each pass with start and end times.
std::string timelineText(const std::vector<TimelineEntry> &timeline, int64_t stages);

/// An SVG picture: a row per stage, forward passes blue, backward green,
/// labelled with the micro-batch (and chunk), time along the x axis.
std::string timelineSvg(const std::vector<TimelineEntry> &timeline, int64_t stages,
                        const std::string &title);

} // namespace mt

#endif // MT_RUNTIME_TRAINING_TIMELINE_H
