//===- RankRun.cpp - one rank's training run -------------------------------===//
#include "RankRun.h"

#include "mt/Data/Files.h"
#include "mt/Data/SentencePieceTokenizer.h"
#include "mt/Data/WordPieceTokenizer.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Runtime/KernelProfile.h"
#include "mt/Runtime/StopRequest.h"
#include "mt/Runtime/Timeline.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace mtrun {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// CPU time of every thread of this process so far: all rank threads of a
/// threaded run, and their BLAS threads.
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// loss.svg's title: the model, its size where the plan records it, and the
/// layout, e.g. "gpt 12L d768 — tp2 pp2 dp1, bf16, micro-batch 4, global batch 512".
std::string lossCurveTitle(const mt::plan::Config &c) {
  const mt::plan::ModelArchitecture &a = c.architecture();
  const mt::plan::Parallelism &p = c.parallel();
  std::string title = c.model();
  if (a.layers() > 0)
    title += " " + std::to_string(a.layers()) + "L";
  if (a.hidden() > 0)
    title += " d" + std::to_string(a.hidden());
  auto size = [](int64_t n) { return std::to_string(std::max<int64_t>(n, 1)); };
  title += " \u2014 tp" + size(p.tensor_parallel_size()) + " pp" +
           size(p.pipeline_parallel_size()) + " dp" + size(p.data_parallel_size());
  if (p.sequence_parallel())
    title += " sp";
  title += ", " + std::string(mt::activationTypeName(c.activation_type())) + ", micro-batch " +
           std::to_string(c.micro_batch_size()) + ", global batch " +
           std::to_string(c.global_batch_size());
  return title;
}

} // namespace

int RankRun::run() {
  std::string error;
  if (prepare(error) && (o_.evalOnly ? evaluateOnly(error) : train(error) && finish(error)))
    return stoppedBy_ ? reportStop() : 0;
  if (error.empty())
    return 1; // another rank failed and said why
  return fail(comm_.size() > 1 ? "rank " + std::to_string(rank_) + ": " + error : error);
}

bool RankRun::prepare(std::string &error) {
  if (!trainer_.load(plan_, rank_, &comm_, error))
    return false;
  if (o_.measureArena)
    trainer_.measureArena();
  trainer_.overlapGradientReduction(o_.overlapGradReduce);
  trainer_.overlapTensorParallelComm(o_.overlapTpComm);
  const mt::plan::Config &c = trainer_.config();
  // --train-iters stops the run early; the data are laid out for the whole
  // schedule either way, so a resumed run continues the same order.
  iters_ = o_.trainIters ? o_.trainIters : c.train_iters();
  // --eval-only draws no training samples (an empty training split is fine).
  int64_t trainSamples =
      o_.evalOnly ? 0 : std::max(iters_, c.train_iters()) * c.global_batch_size();
  if (!openData(error) || !data_.build(o_.split, c.seq_length(), c.seed(), trainSamples, error))
    return false;
  if (!o_.load.empty() && !resume(error))
    return false;
  saver_ = std::make_unique<mt::CheckpointSaver>(o_.save, o_.saveKeep, o_.asyncSave);
  recorder_ = std::make_unique<mt::RunRecorder>(o_.record, lead_);
  if (recorder_->enabled() && !recorder_->begin(trainer_, error))
    return false;
  trainSource_ = recorder_->enabled() ? &recorder_->wrap(data_.train()) : &data_.train();
  log_ = std::make_unique<mt::TrainingLog>(lead_ ? o_.logDir : std::string(),
                                           isatty(fileno(stdout)), iters_, lead_);
  log_->setTitle(lossCurveTitle(c));
  if (!log_->open(error) ||
      (lead_ && !o_.metricsFile.empty() && !log_->openMetrics(o_.metricsFile, error)))
    return false;
  log_->header(c, data_.train().numSamples(), data_.valid().numSamples(), trainer_.device());
  if (lead_ && !loadedFrom_.empty()) {
    std::printf("resumed from %s at iteration %lld\n", loadedFrom_.c_str(),
                static_cast<long long>(first_ - 1));
    for (const std::string &note : notes_)
      std::printf("  note: %s\n", note.c_str());
    std::fflush(stdout);
  }
  return true;
}

bool RankRun::openT5(std::string &error) {
  const mt::plan::Config &c = trainer_.config();
  if (o_.tokenizerModel.empty()) {
    error = "this model takes T5 batches: give --tokenizer-model, the SentencePiece model its "
            "dataset was made with (the sentinels follow its vocabulary)";
    return false;
  }
  mt::SentencePieceTokenizer tokenizer;
  if (!tokenizer.load(o_.tokenizerModel, error))
    return false;
  mt::T5SpecialIds ids;
  ids.eos = tokenizer.endOfText();
  ids.bos = tokenizer.beginOfText();
  if (ids.eos < 0) {
    error = "the SentencePiece model '" + o_.tokenizerModel +
            "' has no </s> id, which T5 "
            "sequences end with";
    return false;
  }
  // Padding is masked out everywhere; id 0 (<unk>, or T5's own <pad>) fills it.
  ids.pad = 0;
  ids.decoderStart = ids.bos >= 0 ? ids.bos : ids.pad;
  ids.firstSentinel = tokenizer.vocabSize();
  ids.numSentinels = static_cast<int32_t>(o_.vocabExtraIds);
  return data_.openT5(o_.data, c.vocab_size(), ids, c.decoder_seq_length(), error);
}

bool RankRun::openData(std::string &error) {
  const mt::plan::Config &c = trainer_.config();
  bool bert = false, t5 = false;
  for (const mt::plan::Function &f : plan_.functions())
    for (const mt::plan::TensorSpec &in : f.inputs()) {
      bert = bert || in.name() == mt::buffers::batch("sop_labels") ||
             in.name() == mt::buffers::batch("token_types");
      t5 = t5 || in.name() == mt::buffers::batch("decoder_tokens");
    }
  if (!t5 && !o_.tokenizerModel.empty()) {
    error = "--tokenizer-model is for T5 plans (span corruption needs its ids); this model "
            "takes " +
            std::string(bert ? "BERT" : "GPT") + " batches";
    return false;
  }
  if (t5 && !o_.vocabFile.empty()) {
    error = "--vocab-file is for BERT plans (a WordPiece vocabulary); this model takes T5 "
            "batches: give --tokenizer-model";
    return false;
  }
  if (t5)
    return openT5(error);
  if (!bert) {
    if (!o_.vocabFile.empty()) {
      error = "--vocab-file is for BERT plans (a WordPiece vocabulary); this model takes GPT "
              "batches";
      return false;
    }
    return data_.open(o_.data, c.vocab_size(), error);
  }
  if (o_.vocabFile.empty()) {
    error = "this model takes BERT batches: give --vocab-file, the WordPiece vocabulary its "
            "dataset was made with";
    return false;
  }
  mt::WordPieceTokenizer vocab;
  if (!vocab.load(o_.vocabFile, /*lowerCase=*/true, error))
    return false;
  mt::BertSpecialIds ids;
  ids.pad = vocab.pad();
  ids.cls = vocab.cls();
  ids.sep = vocab.sep();
  ids.mask = vocab.mask();
  ids.vocabSize = vocab.vocabSize();
  ids.isContinuation.resize(static_cast<size_t>(ids.vocabSize));
  for (int32_t id = 0; id < ids.vocabSize; ++id)
    ids.isContinuation[static_cast<size_t>(id)] = vocab.isContinuation(id);
  return data_.openBert(o_.data, c.vocab_size(), ids, error);
}

bool RankRun::resume(std::string &error) {
  mt::SplitSource &train = data_.train();
  mt::RunPosition at;
  if (!mt::loadCheckpoint(trainer_, comm_, o_.load, loadedFrom_, at, notes_, error))
    return false;
  // A checkpoint that consumed nothing (an imported model) starts any data order.
  if (!o_.evalOnly && at.trainSamples > 0 && at.trainSplitSamples != train.numSamples())
    notes_.push_back("the training split holds " + std::to_string(train.numSamples()) +
                     " samples, the checkpoint's run had " + std::to_string(at.trainSplitSamples) +
                     " (other data, --split, sequence length or train iterations): the data "
                     "order does not continue exactly");
  train.seek(at.trainSamples);
  // An evaluation alone starts at the split's first sample, so checkpoints
  // evaluated one after another see the same batches.
  data_.valid().seek(o_.evalOnly ? 0 : at.validSamples);
  first_ = at.iteration + 1;
  if (first_ > iters_ && !o_.evalOnly) {
    error = "checkpoint '" + loadedFrom_ + "' is at iteration " + std::to_string(at.iteration) +
            ", the run stops at " + std::to_string(iters_) +
            ": nothing to do (raise --train-iters or compile a plan with more)";
    return false;
  }
  return true;
}

bool RankRun::train(std::string &error) {
  start_ = now();
  // --profile: rank 0 starts the timing after the first step (cuBLAS and the
  // driver settle in it) unless there is only one, and pauses it around
  // evaluations.
  profiled_ = o_.profile && lead_ ? trainer_.gpu() : nullptr;
  if (profiled_ && iters_ == first_)
    profiled_->profile(mt::CudaBackend::Profiling::Start);
  for (int64_t it = first_; it <= iters_; ++it) {
    if (rank_ == o_.killRank && it == o_.killStep)
      die_(comm_);
    if (profiled_ && it == first_ + 1)
      profiled_->profile(mt::CudaBackend::Profiling::Start);
    if (profiled_ && (it > first_ || iters_ == first_))
      ++profiledSteps_;
    // A dataset rewritten in place would feed this step other data.
    if (it > first_ && !mt::mappedFilesUnchanged(error))
      return false;
    double t0 = now(), cpu0 = processCpuSeconds();
    mt::StepStats stats;
    if (!trainer_.step(it, *trainSource_, stats, error)) {
      error = "iteration " + std::to_string(it) + ": " + error;
      return false;
    }
    stats.cpuSeconds = processCpuSeconds() - cpu0;
    if (recorder_->enabled() && !recorder_->step(trainer_, it, stats, error))
      return false;
    if (!afterStep(it, stats, now() - t0, error))
      return false;
    bool stop = false;
    if (!stopAgreed(it, stop, error))
      return false;
    if (stop) {
      iters_ = it; // finish() saves here
      log_->stopAfter(it);
      break;
    }
  }
  return true;
}

bool RankRun::stopAgreed(int64_t it, bool &stop, std::string &error) {
  if (rank_ == o_.signalRank && it == o_.signalStep)
    std::raise(SIGTERM);
  int64_t signal = mt::stopSignal();
  if (comm_.size() > 1) {
    mt::Group world{{}, "world"};
    for (int64_t r = 0; r < comm_.size(); ++r)
      world.ranks.push_back(r);
    if (!comm_.allReduce(world, &signal, 1, mt::ElementType::I64, mt::ReduceOp::Max,
                         "stop request after iteration " + std::to_string(it), error))
      return false;
  }
  // A request during the last step: the run ends as planned anyway.
  stop = signal != 0 && it < iters_;
  if (stop)
    stoppedBy_ = static_cast<int>(signal);
  return true;
}

int RankRun::reportStop() {
  if (lead_) {
    std::string saved = o_.save.empty() ? "nothing saved (no --save)"
                                        : "checkpoint saved; resume with --load " + o_.save;
    std::printf("mt-run: %s: stopped after iteration %lld; %s\n", mt::stopSignalName(stoppedBy_),
                static_cast<long long>(iters_), saved.c_str());
    std::fflush(stdout);
  }
  return mt::stopExitCode(stoppedBy_);
}

bool RankRun::evaluateOnly(std::string &error) {
  const mt::plan::Config &c = trainer_.config();
  int64_t samples = data_.valid().numSamples();
  if (samples == 0) {
    error = "the validation split is empty: give --split a validation share (--split 0,1,0 "
            "evaluates on all of --data)";
    return false;
  }
  int64_t batches =
      o_.evalItersGiven ? o_.evalIters : std::max<int64_t>(samples / c.micro_batch_size(), 1);
  double loss = 0;
  std::vector<std::pair<std::string, double>> metrics;
  if (!trainer_.evaluate(data_.valid(), batches, loss, error, &metrics)) {
    error = "evaluation: " + error;
    return false;
  }
  if (lead_) {
    // The model's metrics as training prints them; the perplexity is the
    // language model's (of "lm loss" when the loss has other parts).
    std::string parts;
    double lm = loss;
    for (const auto &[name, value] : metrics) {
      parts += " | " + name + " " + std::to_string(value);
      if (name == "lm loss")
        lm = value;
    }
    std::printf("evaluation of %s on %lld micro-batches (%lld tokens) of the validation split | "
                "loss %.6f%s | perplexity %.3f\n",
                loadedFrom_.empty() ? "the initial parameters" : loadedFrom_.c_str(),
                static_cast<long long>(batches),
                static_cast<long long>(batches * c.micro_batch_size() * c.seq_length()), loss,
                parts.c_str(), std::exp(lm));
    std::fflush(stdout);
  }
  return true;
}

bool RankRun::afterStep(int64_t it, const mt::StepStats &stats, double seconds,
                        std::string &error) {
  const mt::plan::Config &c = trainer_.config();
  if (stats.overflow) {
    // fp16 overflow: the loss scale was lowered; expected while it settles.
    ++skippedTotal_;
  } else if (stats.skipped) {
    ++skippedTotal_;
    if (++skippedInARow_ > o_.maxSkipped) {
      // Every rank sees the same (reduced) loss and gradient norm, so all
      // abort here together; rank 0 says why, once.
      if (lead_)
        error = "aborting: " + std::to_string(skippedInARow_) +
                " consecutive steps had a non-finite loss or gradient (last loss " +
                std::to_string(stats.loss) + ")";
      return false;
    }
  } else {
    skippedInARow_ = 0;
  }
  lastExposedComm_ = stats.exposedCommSeconds;
  double tokensPerStep = static_cast<double>(c.global_batch_size() * c.seq_length());
  log_->step(it, stats, tokensPerStep / seconds, now() - start_, skippedTotal_,
             it % o_.logInterval == 0 || it == iters_);
  bool evalNow = o_.evalInterval ? (it % o_.evalInterval == 0 || it == iters_) : it == iters_;
  if (evalNow && data_.valid().numSamples() > 0) {
    if (profiled_)
      profiled_->profile(mt::CudaBackend::Profiling::Pause);
    double loss = 0;
    std::vector<std::pair<std::string, double>> metrics;
    if (!trainer_.evaluate(data_.valid(), o_.evalIters, loss, error, &metrics)) {
      error = "evaluation: " + error;
      return false;
    }
    log_->validation(it, loss, metrics);
    if (profiled_)
      profiled_->profile(mt::CudaBackend::Profiling::Resume);
  }
  return finishSave(/*wait=*/false, error) &&
         (o_.saveInterval == 0 || it % o_.saveInterval != 0 || save(it, error));
}

bool RankRun::finish(std::string &error) {
  if (!o_.save.empty() && (o_.saveInterval == 0 || iters_ % o_.saveInterval != 0) &&
      !save(iters_, error))
    return false;
  if (!finishSave(/*wait=*/true, error) || !log_->finish(error) ||
      (recorder_->enabled() && !recorder_->end(trainer_, error)))
    return false;
  if (o_.profile && !reportProfile(error))
    return false;
  if (o_.measureArena && lead_)
    printArena();
  return o_.timeline.empty() || writeTimeline(error);
}

mt::RunPosition RankRun::position(int64_t it) {
  return mt::RunPosition{it, data_.train().position(), data_.valid().position(),
                         data_.train().numSamples()};
}

void RankRun::reportSave(double writeSeconds) {
  if (!lead_ || saver_->published() < 0)
    return;
  if (o_.asyncSave)
    std::printf("saved checkpoint %s/iter_%07lld (rank 0 wrote %.1f MB in the background; "
                "training held %.2f s for the copy)\n",
                o_.save.c_str(), static_cast<long long>(saver_->published()), saver_->bytes() / 1e6,
                saver_->holdSeconds());
  else
    std::printf("saved checkpoint %s/iter_%07lld in %.2f s (rank 0 wrote %.1f MB)\n",
                o_.save.c_str(), static_cast<long long>(saver_->published()), writeSeconds,
                saver_->bytes() / 1e6);
  std::fflush(stdout);
}

bool RankRun::save(int64_t it, std::string &error) {
  double t0 = now();
  int64_t before = saver_->published();
  if (!saver_->save(trainer_, comm_, position(it), error))
    return false;
  if (saver_->published() != before)
    reportSave(now() - t0);
  return true;
}

bool RankRun::finishSave(bool wait, std::string &error) {
  if (!saver_->pending())
    return true;
  if (!saver_->finish(comm_, wait, error))
    return false;
  if (!saver_->pending())
    reportSave(0);
  return true;
}

bool RankRun::reportProfile(std::string &error) {
  // Printed by rank 0 once every rank of the process is done (their kernels
  // are counted too).
  if (comm_.size() > 1) {
    mt::Group world{{}, "world"};
    for (int64_t r = 0; r < comm_.size(); ++r)
      world.ranks.push_back(r);
    int64_t done = 1;
    if (!comm_.allReduce(world, &done, 1, mt::ElementType::I64, mt::ReduceOp::Sum,
                         "the end of --profile", error))
      return false;
  }
  mt::CudaBackend *gpu = trainer_.gpu();
  if (!lead_ || !gpu)
    return true;
  gpu->profile(mt::CudaBackend::Profiling::Pause);
  mt::DevicePeaks peaks = mt::peaksOf(gpu->device());
  if (o_.peakBandwidth > 0)
    peaks.bandwidthGBs = o_.peakBandwidth;
  if (o_.peakTflops > 0)
    peaks.tflops16 = peaks.tflops32 = o_.peakTflops;
  std::fputs(
      ("\n" + mt::profileReport(gpu->profileEntries(), plan_, profiledSteps_, gpu->device(), peaks))
          .c_str(),
      stdout);
  if (lastExposedComm_ >= 0)
    std::printf("exposed communication of the last step (not beside any computation): %.3f ms\n",
                lastExposedComm_ * 1e3);
  return true;
}

void RankRun::printArena() {
  std::printf("arena of rank 0: %lld bytes planned\n",
              static_cast<long long>(trainer_.arenaBytes()));
  if (trainer_.savedActivationBytes() > 0)
    std::printf("saved activations of rank 0: %lld bytes allocated\n",
                static_cast<long long>(trainer_.savedActivationBytes()));
  for (const mt::plan::Function &f : plan_.functions()) {
    auto it = trainer_.arenaHighWaterMarks().find(f.name());
    if (it == trainer_.arenaHighWaterMarks().end())
      continue; // not this rank's, or not called
    std::printf("  %s: planned %lld, written up to %lld\n", f.name().c_str(),
                static_cast<long long>(f.arena_bytes()), static_cast<long long>(it->second));
  }
}

bool RankRun::writeTimeline(std::string &error) {
  std::vector<mt::TimelineEntry> timeline;
  if (!trainer_.gatherTimeline(timeline, error))
    return false;
  if (!lead_)
    return true;
  int64_t stages = trainer_.mesh().sizes()[0];
  std::string title = "pipeline schedule of step " + std::to_string(iters_) + ": " +
                      std::to_string(stages) + " stages, " +
                      std::string(mt::nameOf(trainer_.config().parallel().schedule()));
  if (mkdir(o_.timeline.c_str(), 0755) != 0 && errno != EEXIST) {
    error = "cannot create '" + o_.timeline + "'";
    return false;
  }
  // The collectives after the schedule (loss and gradient reductions) run
  // beside no computation: what the step waits for beyond the picture.
  std::string schedule = mt::timelineText(timeline, stages);
  if (lastExposedComm_ >= 0)
    schedule += "exposed communication after the schedule (loss and gradient reductions): " +
                std::to_string(lastExposedComm_ * 1e3) + " ms\n";
  for (const auto &[file, text] : {std::pair<std::string, std::string>{"timeline.txt", schedule},
                                   {"timeline.svg", mt::timelineSvg(timeline, stages, title)}}) {
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

} // namespace mtrun
