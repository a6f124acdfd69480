//===- mt-run.cpp - trains a model from an mtc plan ------------------------===//
#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/RunRecorder.h"
#include "mt/Runtime/Trainer.h"
#include "mt/Runtime/TrainingData.h"
#include "mt/Runtime/TrainingLog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

struct Options {
  std::string plan, data, logDir, record;
  bool dump = false;
  int64_t trainIters = 0, evalInterval = 0, evalIters = 4, logInterval = 1, maxSkipped = 10;
  std::string split = "949,50,1";
};

void usage() {
  std::fprintf(stderr,
               "usage: mt-run PLAN --data PATH [options]\n"
               "       mt-run PLAN --dump\n"
               "  --data PATH           an indexed dataset prefix (PATH.bin/.idx from mt-data or\n"
               "                        Megatron), JSON lines (*.jsonl, \"text\" field), a text file,\n"
               "                        or whitespace-separated ids, one document per line (*.tokens)\n"
               "  --split A,B,C         train/valid/test weights over the data (949,50,1)\n"
               "  --train-iters N       override the plan's number of steps\n"
               "  --eval-interval N     validation loss and perplexity every N steps (0: at the end)\n"
               "  --eval-iters N        validation micro-batches per evaluation (4)\n"
               "  --log-interval N      print every N steps (1)\n"
               "  --max-skipped N       abort after N steps skipped for non-finite values (10)\n"
               "  --log-dir DIR         write train.log and loss.svg there\n"
               "  --record DIR          save initial parameters, batches, first gradients, losses\n"
               "                        and final parameters, to replay the run elsewhere\n");
}

bool parseInt(const char *text, int64_t &out) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "mt-run: error: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // --flag=value is the same as --flag value.
    std::string inlineValue;
    bool hasInline = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      inlineValue = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      hasInline = true;
    }
    auto value = [&](const char *flag) -> const char * {
      if (hasInline)
        return inlineValue.c_str();
      if (i + 1 >= argc) {
        fail(std::string(flag) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    auto intValue = [&](const char *flag, int64_t &out, int64_t min) {
      const char *v = value(flag);
      if (!parseInt(v, out) || out < min) {
        fail(std::string(flag) + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
        std::exit(1);
      }
    };
    if (a == "--data") o.data = value("--data");
    else if (a == "--dump") o.dump = true;
    else if (a == "--split") o.split = value("--split");
    else if (a == "--log-dir") o.logDir = value("--log-dir");
    else if (a == "--record") o.record = value("--record");
    else if (a == "--train-iters") intValue("--train-iters", o.trainIters, 1);
    else if (a == "--eval-interval") intValue("--eval-interval", o.evalInterval, 0);
    else if (a == "--eval-iters") intValue("--eval-iters", o.evalIters, 1);
    else if (a == "--log-interval") intValue("--log-interval", o.logInterval, 1);
    else if (a == "--max-skipped") intValue("--max-skipped", o.maxSkipped, 0);
    else if (a == "-h" || a == "--help") { usage(); return 0; }
    else if (!a.empty() && a[0] == '-') { usage(); return fail("unknown option '" + a + "'"); }
    else if (o.plan.empty()) o.plan = a;
    else { usage(); return fail("unexpected argument '" + a + "'"); }
  }
  if (o.plan.empty()) {
    usage();
    return fail("no plan given");
  }
  std::string error;
  mt::plan::Plan plan;
  if (!mt::readPlanFile(o.plan, plan, error))
    return fail(error);
  if (o.dump) {
    std::fputs(mt::dumpPlan(plan).c_str(), stdout);
    return 0;
  }
  if (o.data.empty())
    return fail("no training data: pass --data PATH");

  mt::Trainer trainer;
  if (!trainer.load(plan, error))
    return fail(error);
  const mt::plan::Config &c = trainer.config();
  int64_t iters = o.trainIters ? o.trainIters : c.train_iters();

  mt::TrainingData data;
  if (!data.open(o.data, c.vocab_size(), error) ||
      !data.build(o.split, c.seq_length(), c.seed(), iters * c.global_batch_size(), error))
    return fail(error);
  mt::SplitSource &train = data.train(), &valid = data.valid();

  mt::RunRecorder recorder(o.record);
  if (recorder.enabled() && !recorder.begin(trainer, error))
    return fail(error);
  mt::BatchSource &trainSource = recorder.enabled() ? recorder.wrap(train) : train;

  mt::TrainingLog log(o.logDir, isatty(fileno(stdout)), iters);
  if (!log.open(error))
    return fail(error);
  log.header(c, train.numSamples(), valid.numSamples());
  auto start = std::chrono::steady_clock::now();
  int64_t skippedInARow = 0, skippedTotal = 0;
  double tokensPerStep = static_cast<double>(c.global_batch_size() * c.seq_length());
  for (int64_t it = 1; it <= iters; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    mt::StepStats stats;
    if (!trainer.step(it, trainSource, stats, error))
      return fail("iteration " + std::to_string(it) + ": " + error);
    if (recorder.enabled() && !recorder.step(trainer, it, stats, error))
      return fail(error);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stats.skipped) {
      ++skippedTotal;
      if (++skippedInARow > o.maxSkipped)
        return fail("aborting: " + std::to_string(skippedInARow) +
                    " consecutive steps had a non-finite loss or gradient (last loss " +
                    std::to_string(stats.loss) + ")");
    } else {
      skippedInARow = 0;
    }
    log.step(it, stats, tokensPerStep / seconds, elapsed, skippedTotal, it % o.logInterval == 0 || it == iters);
    bool evalNow = o.evalInterval ? (it % o.evalInterval == 0 || it == iters) : it == iters;
    if (evalNow && valid.numSamples() > 0) {
      double loss = 0;
      if (!trainer.evaluate(valid, o.evalIters, loss, error))
        return fail("evaluation: " + error);
      log.validation(it, loss);
    }
  }
  if (!log.finish(error) || (recorder.enabled() && !recorder.end(trainer, error)))
    return fail(error);
  return 0;
}
