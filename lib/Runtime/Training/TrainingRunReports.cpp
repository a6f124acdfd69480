//===- TrainingRunReports.cpp - what a run reports besides its log --------===//
//
// --eval-only's evaluation, --profile's kernel report, --measure-arena's
// high-water marks and --timeline's pipeline picture.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Training/TrainingRun.h"

#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/Code/KernelProfile.h"
#include "mt/Runtime/Training/Timeline.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <sys/stat.h>

namespace mt {

SplitTargets TrainingRun::splitTargets() const {
  const plan::Config &c = trainer_.config();
  SplitTargets targets;
  if (o_.evalOnly) {
    // --eval-only draws no training samples (an empty training split is
    // fine), and without --eval-iters all of the validation split.
    targets.valid = o_.evalItersGiven ? o_.evalIters * c.micro_batch_size() : 0;
    return targets;
  }
  // The data are laid out for the whole schedule, so a run stopped early by
  // --train-iters and resumed continues the same order.
  int64_t steps = std::max(iters_, c.train_iters());
  int64_t perEvaluation = o_.evalIters * c.micro_batch_size();
  targets.train = steps * c.global_batch_size();
  targets.valid = (o_.evalInterval ? steps / o_.evalInterval + 1 : 1) * perEvaluation;
  targets.test = perEvaluation;
  return targets;
}

bool TrainingRun::evaluate(int64_t it, Split split, std::string &error) {
  bool test = split == Split::Test;
  SplitSource &blend = test ? data_.test() : data_.valid();
  // Each dataset of a blend is evaluated on as many of its own samples,
  // from the same position: every evaluation draws the same number.
  int64_t at = blend.position();
  double loss = 0;
  std::vector<std::pair<std::string, double>> metrics;
  if (!trainer_.evaluate(blend, o_.evalIters, loss, error, &metrics)) {
    error = "evaluation: " + error;
    return false;
  }
  log_->validation(it, loss, metrics, "", test);
  for (SplitSource &part : data_.partsOf(split)) {
    part.seek(at);
    if (!trainer_.evaluate(part, o_.evalIters, loss, error, &metrics)) {
      error = "evaluation on '" + part.name() + "': " + error;
      return false;
    }
    log_->validation(it, loss, metrics, part.name(), test);
  }
  return true;
}

bool TrainingRun::evaluateOnly(std::string &error) {
  const plan::Config &c = trainer_.config();
  int64_t samples = data_.valid().numSamples();
  if (samples == 0) {
    error = "the validation split is empty: give --split a validation share (--split 0,1,0 "
            "evaluates on all of --data) or --valid-data-path";
    return false;
  }
  std::vector<SplitSource *> sources{&data_.valid()};
  for (SplitSource &part : data_.partsOf(Split::Valid))
    sources.push_back(&part);
  for (SplitSource *source : sources) {
    int64_t batches = o_.evalItersGiven
                          ? o_.evalIters
                          : std::max<int64_t>(source->numSamples() / c.micro_batch_size(), 1);
    double loss = 0;
    std::vector<std::pair<std::string, double>> metrics;
    if (!trainer_.evaluate(*source, batches, loss, error, &metrics)) {
      error = "evaluation: " + error;
      return false;
    }
    if (!lead_)
      continue;
    // The model's metrics as training prints them; the perplexity is the
    // language model's (of "lm loss" when the loss has other parts).
    std::string parts;
    double lm = loss;
    for (const auto &[name, value] : metrics) {
      parts += " | " + name + " " + std::to_string(value);
      if (name == "lm loss")
        lm = value;
    }
    std::string of = source == &data_.valid() ? "" : " of '" + source->name() + "'";
    std::printf("evaluation of %s on %lld micro-batches (%lld tokens) of the validation split%s | "
                "loss %.6f%s | perplexity %.3f\n",
                loadedFrom_.empty() ? "the initial parameters" : loadedFrom_.c_str(),
                static_cast<long long>(batches),
                static_cast<long long>(batches * c.micro_batch_size() * c.seq_length()), of.c_str(),
                loss, parts.c_str(), std::exp(lm));
    std::fflush(stdout);
  }
  return true;
}

bool TrainingRun::reportProfile(std::string &error) {
  // Printed by rank 0 once every rank of the process is done (their kernels
  // are counted too).
  if (comm_.size() > 1) {
    Group world{{}, "world"};
    for (int64_t r = 0; r < comm_.size(); ++r)
      world.ranks.push_back(r);
    int64_t done = 1;
    if (!comm_.allReduce(world, &done, 1, ElementType::I64, ReduceOp::Sum, "the end of --profile",
                         error))
      return false;
  }
  CudaBackend *gpu = trainer_.gpu();
  if (!lead_ || !gpu)
    return true;
  gpu->profile(CudaBackend::Profiling::Pause);
  // --report-kernels: the stand-in counted; the floors are the named GPU's.
  bool counted = o_.reportKernels != KnownGpu::None;
  std::string device = counted ? deviceName(o_.reportKernels) : gpu->device();
  DevicePeaks peaks = peaksOf(device);
  if (o_.peakBandwidth > 0)
    peaks.bandwidthGBs = o_.peakBandwidth;
  if (o_.peakTflops > 0)
    peaks.tflops16 = peaks.tflops32 = o_.peakTflops;
  std::fputs(
      ("\n" + profileReport(gpu->profileEntries(), plan_, profiledSteps_, device, peaks, counted))
          .c_str(),
      stdout);
  if (lastExposedComm_ >= 0 && !counted)
    std::printf("exposed communication of the last step (not beside any computation): %.3f ms\n",
                lastExposedComm_ * 1e3);
  return true;
}

void TrainingRun::printArena() {
  std::printf("arena of rank 0: %lld bytes planned\n",
              static_cast<long long>(trainer_.arenaBytes()));
  if (trainer_.savedActivationBytes() > 0)
    std::printf("saved activations of rank 0: %lld bytes allocated\n",
                static_cast<long long>(trainer_.savedActivationBytes()));
  for (const plan::Function &f : plan_.functions()) {
    auto it = trainer_.arenaHighWaterMarks().find(f.name());
    if (it == trainer_.arenaHighWaterMarks().end())
      continue; // not this rank's, or not called
    std::printf("  %s: planned %lld, written up to %lld\n", f.name().c_str(),
                static_cast<long long>(f.arena_bytes()), static_cast<long long>(it->second));
  }
}

bool TrainingRun::writeTimeline(std::string &error) {
  std::vector<TimelineEntry> timeline;
  if (!trainer_.gatherTimeline(timeline, error))
    return false;
  if (!lead_)
    return true;
  int64_t stages = trainer_.mesh().sizes()[0];
  std::string title = "pipeline schedule of step " + std::to_string(iters_) + ": " +
                      std::to_string(stages) + " stages, " +
                      std::string(nameOf(trainer_.config().parallel().schedule()));
  if (mkdir(o_.timeline.c_str(), 0755) != 0 && errno != EEXIST) {
    error = "cannot create '" + o_.timeline + "'";
    return false;
  }
  // The collectives after the schedule (loss and gradient reductions) run
  // beside no computation: what the step waits for beyond the picture.
  std::string schedule = timelineText(timeline, stages);
  if (lastExposedComm_ >= 0)
    schedule += "exposed communication after the schedule (loss and gradient reductions): " +
                std::to_string(lastExposedComm_ * 1e3) + " ms\n";
  for (const auto &[file, text] : {std::pair<std::string, std::string>{"timeline.txt", schedule},
                                   {"timeline.svg", timelineSvg(timeline, stages, title)}}) {
    std::FILE *f = std::fopen((o_.timeline + "/" + file).c_str(), "w");
    if (!f || std::fputs(text.c_str(), f) < 0) {
      if (f)
        std::fclose(f);
      error = "cannot write '" + o_.timeline + "/" + file + "'";
      return false;
    }
    std::fclose(f);
  }
  return true;
}

} // namespace mt
