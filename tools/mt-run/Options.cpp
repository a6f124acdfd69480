//===- Options.cpp - mt-run's command line ---------------------------------===//
#include "Options.h"

#include "mt/Support/HelpOptions.h"

#include "llvm/Support/CommandLine.h"

#include <cctype>
#include <cstdio>

namespace cl = llvm::cl;

namespace mtrun {

namespace {

cl::OptionCategory runCategory("mt-run options");
cl::opt<std::string> planPath(cl::Positional, cl::desc("<plan>"), cl::cat(runCategory));
cl::opt<std::string> data("data",
                          cl::desc("an indexed dataset prefix (PATH.bin/.idx from mt-data or "
                                   "Megatron), JSON lines (*.jsonl, \"text\" field), a text file, "
                                   "or whitespace-separated ids, one document per line (*.tokens)"),
                          cl::value_desc("path"), cl::cat(runCategory));
cl::list<std::string> dataPath(
    "data-path",
    cl::desc("datasets blended by weight, each cut by --split: W1 PATH1 W2 PATH2 ... (or PATH1 "
             "PATH2 ..., weighed by size); every word up to the next flag"),
    cl::value_desc("words"), cl::cat(runCategory));
cl::opt<std::string> dataArgsPath("data-args-path", cl::desc("a file holding --data-path's words"),
                                  cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> dataCachePath(
    "data-cache-path",
    cl::desc("where indexed datasets' index caches go (default: a 'cache' directory next to "
             "each dataset)"),
    cl::value_desc("dir"), cl::cat(runCategory));
cl::list<std::string>
    trainDataPath("train-data-path",
                  cl::desc("the training split's own datasets, used whole (as --data-path)"),
                  cl::value_desc("words"), cl::cat(runCategory));
cl::list<std::string> validDataPath("valid-data-path",
                                    cl::desc("the validation split's own datasets, used whole"),
                                    cl::value_desc("words"), cl::cat(runCategory));
cl::list<std::string>
    testDataPath("test-data-path",
                 cl::desc("the test split's own datasets, evaluated after the last step"),
                 cl::value_desc("words"), cl::cat(runCategory));
cl::opt<std::string> vocabFile(
    "vocab-file",
    cl::desc("BERT: the WordPiece vocabulary the dataset was made with (its [PAD], [CLS], [SEP] "
             "and [MASK] ids, and which tokens continue a word)"),
    cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> tokenizerModel(
    "tokenizer-model",
    cl::desc("T5: the SentencePiece model the dataset was made with (its </s> and <s> ids and "
             "vocabulary size; the sentinels follow the vocabulary)"),
    cl::value_desc("path"), cl::cat(runCategory));
cl::opt<int64_t> vocabExtraIds(
    "vocab-extra-ids",
    cl::desc("T5: sentinel ids appended after the SentencePiece vocabulary (Megatron's flag)"),
    cl::init(100), cl::cat(runCategory));
cl::opt<bool> dump("dump", cl::desc("print the plan and exit"), cl::cat(runCategory));
cl::opt<std::string> split("split", cl::desc("train/valid/test weights over the data"),
                           cl::init("949,50,1"), cl::cat(runCategory));
cl::opt<int64_t> trainIters("train-iters",
                            cl::desc("stop after step N (the plan's schedule, learning rates and "
                                     "data order unchanged: a later --load goes on from there)"),
                            cl::init(0), cl::cat(runCategory));
cl::opt<int64_t> evalInterval("eval-interval",
                              cl::desc("validation loss and perplexity every N steps (0: at the "
                                       "end)"),
                              cl::init(0), cl::cat(runCategory));
cl::opt<int64_t> evalIters("eval-iters", cl::desc("validation micro-batches per evaluation"),
                           cl::init(4), cl::cat(runCategory));
cl::opt<bool> evalOnly("eval-only",
                       cl::desc("evaluate the loaded (or initial) parameters on the validation "
                                "split and exit: loss and perplexity (all of the split unless "
                                "--eval-iters; --split 0,1,0 evaluates on all of --data)"),
                       cl::cat(runCategory));
cl::opt<int64_t> logInterval("log-interval", cl::desc("print every N steps"), cl::init(1),
                             cl::cat(runCategory));
cl::opt<int64_t> maxSkipped("max-skipped",
                            cl::desc("abort after N steps in a row skipped for non-finite values"),
                            cl::init(10), cl::cat(runCategory));
cl::opt<std::string> logDir("log-dir", cl::desc("write train.log and loss.svg there"),
                            cl::cat(runCategory));
cl::opt<std::string> metricsFile(
    "metrics-file",
    cl::desc("write every step and validation there as JSON lines (step, loss, lr, grad_norm, "
             "tokens_per_s, elapsed_s, comm; include/mt/Runtime/Training/MetricsFile.h)"),
    cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> record("record",
                            cl::desc("save initial parameters, batches, first gradients, losses "
                                     "and final parameters, to replay the run elsewhere"),
                            cl::cat(runCategory));
cl::opt<std::string> save("save",
                          cl::desc("save checkpoints into DIR (at the end of the run and every "
                                   "--save-interval steps); each rank writes its own file"),
                          cl::value_desc("dir"), cl::cat(runCategory));
cl::opt<int64_t> saveInterval("save-interval",
                              cl::desc("also save every N steps (0: only at the end)"), cl::init(0),
                              cl::cat(runCategory));
cl::opt<int64_t> saveKeep("save-keep", cl::desc("keep the newest N checkpoints (0: all)"),
                          cl::init(0), cl::cat(runCategory));
cl::opt<bool> asyncSave("async-save",
                        cl::desc("write checkpoints in the background: training waits only for "
                                 "a copy of the state (which takes its memory again)"),
                        cl::cat(runCategory));
cl::opt<std::string> load("load",
                          cl::desc("resume from a checkpoint: PATH/iter_* or a save directory (its "
                                   "newest complete one); any layout loads into any other"),
                          cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> timeline("timeline",
                              cl::desc("pipelined plans: write the last step's schedule as it ran "
                                       "(timeline.txt, timeline.svg)"),
                              cl::value_desc("dir"), cl::cat(runCategory));
cl::opt<bool> measureArena("measure-arena",
                           cl::desc("print how far each function writes into rank 0's arena "
                                    "against the plan (fills and scans it around every call)"),
                           cl::cat(runCategory));
cl::opt<bool> overlapGradReduce(
    "overlap-grad-reduce",
    cl::desc("data-parallel plans (rank threads; MPI with MPI_THREAD_MULTIPLE): all-reduce "
             "(distributed optimizer: "
             "reduce-scatter) each gradient slice on a thread of its own as the last "
             "micro-batch's backward finishes it (default on; "
             "--overlap-grad-reduce=false reduces after the backward)"),
    cl::init(true), cl::cat(runCategory));
cl::opt<mt::CollectiveOverlap> overlapTpComm(
    "overlap-tp-comm",
    cl::desc("plans compiled with mtc --overlap-tp-comm: move their started all-gathers and "
             "reduce-scatters on a thread of the rank's own while the GEMMs run (true), or run "
             "each whole where it starts (false); auto: under MPI with MPI_THREAD_MULTIPLE "
             "and under NCCL on GPUs (a stream of their own), not on rank threads, which share "
             "one machine's cores and gain nothing"),
    cl::values(clEnumValN(mt::CollectiveOverlap::Auto, "auto", "under MPI or NCCL (default)"),
               clEnumValN(mt::CollectiveOverlap::On, "true", "always"),
               clEnumValN(mt::CollectiveOverlap::Off, "false", "never")),
    cl::init(mt::CollectiveOverlap::Auto), cl::cat(runCategory));
using CollectivesOn = mt::TrainingRunOptions::Collectives;
cl::opt<CollectivesOn> collectivesOn(
    "collectives",
    cl::desc("where the collectives of compiled code run: host (default; through host memory "
             "over the rank threads or MPI), nccl (CUDA plans: NCCL calls on each rank's "
             "stream, a GPU per rank; $MT_NCCL_LIBRARY or libnccl.so.2) or auto (nccl where "
             "it can serve: a CUDA plan, a process per rank, a GPU each, NCCL loaded)"),
    cl::values(clEnumValN(CollectivesOn::Host, "host", "the host transport (default)"),
               clEnumValN(CollectivesOn::Nccl, "nccl", "NCCL on the GPUs' streams"),
               clEnumValN(CollectivesOn::Auto, "auto", "NCCL where it can serve, else host")),
    cl::init(CollectivesOn::Host), cl::cat(runCategory));
cl::opt<bool> profile("profile",
                      cl::desc("CUDA plans: time every kernel and GEMM after the first step and "
                               "print them per step"),
                      cl::cat(runCategory));
cl::opt<mt::KnownGpu> reportKernels(
    "report-kernels",
    cl::desc("CUDA plans, no GPU needed: count two steps' kernel launches, bytes and GEMM FLOPs "
             "with the stand-in runtime (nothing runs; the losses mean nothing) and print each "
             "one's floor at this GPU's peaks, and the step's"),
    cl::values(clEnumValN(mt::KnownGpu::A100, "a100", "A100 SXM 80GB"),
               clEnumValN(mt::KnownGpu::H100, "h100", "H100 SXM"),
               clEnumValN(mt::KnownGpu::H200, "h200", "H200")),
    cl::init(mt::KnownGpu::None), cl::cat(runCategory));
cl::opt<double> peakBandwidth("peak-bandwidth",
                              cl::desc("GB/s: the device's peak for --profile (known for A100, "
                                       "H100, H200)"),
                              cl::init(0), cl::cat(runCategory));
cl::opt<double> peakTflops("peak-tflops", cl::desc("TFLOP/s: the device's peak for --profile"),
                           cl::init(0), cl::cat(runCategory));
cl::opt<double> commTimeout("comm-timeout",
                            cl::desc("report a rank that waits longer on a peer, and exit"),
                            cl::init(300), cl::cat(runCategory));
cl::opt<std::string> injectFault("inject-fault",
                                 cl::desc("testing: kill:RANK:STEP, rank RANK dies at step STEP; "
                                          "sigterm:RANK:STEP, its process gets SIGTERM after it"),
                                 cl::cat(runCategory));

/// An integer flag's lower bound, checked after parsing.
bool atLeast(const cl::opt<int64_t> &flag, int64_t min) {
  if (flag >= min)
    return true;
  fail("--" + flag.ArgStr.str() + " needs an integer >= " + std::to_string(min) + ", got " +
       std::to_string(flag));
  return false;
}

} // namespace

namespace {

/// Megatron's list flags take every word up to the next flag; llvm::cl takes
/// one value per occurrence, so "--data-path 0.3 web 0.7 code" becomes one
/// occurrence per word.
std::vector<std::string> expandListFlags(int argc, char **argv) {
  std::vector<std::string> words{argv[0]};
  auto isFlag = [](const std::string &w) {
    return w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) &&
           w[1] != '.';
  };
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    words.push_back(word);
    std::string name = word.substr(0, word.find('='));
    bool list = name == "--data-path" || name == "--train-data-path" ||
                name == "--valid-data-path" || name == "--test-data-path";
    if (!list || word.find('=') != std::string::npos)
      continue;
    words.pop_back();
    for (; i + 1 < argc && !isFlag(argv[i + 1]); ++i)
      words.push_back(word + "=" + argv[i + 1]);
    if (words.back().rfind(word + "=", 0) != 0)
      words.push_back(word); // no value: llvm::cl says so
  }
  return words;
}

/// The data flags as TrainingData's sources; false after printing why not.
bool dataSourcesOf(mt::DataSources &sources) {
  std::vector<std::string> words(dataPath.begin(), dataPath.end());
  std::string error;
  if (!dataArgsPath.empty()) {
    if (!words.empty())
      return fail("give --data-path or --data-args-path, not both"), false;
    if (!mt::readDataBlendWords(dataArgsPath, words, error))
      return fail("--data-args-path: " + error), false;
  }
  if (!data.empty()) {
    if (!words.empty())
      return fail("--data names one dataset and --data-path a blend: give one of them"), false;
    words.push_back(data);
  }
  if (!words.empty() && !mt::parseDataBlend(words, sources.blend, error))
    return fail("--data-path: " + error), false;
  const std::vector<std::string> *perSplit[3] = {&trainDataPath, &validDataPath, &testDataPath};
  const char *names[3] = {"train", "valid", "test"};
  for (int s = 0; s < 3; ++s) {
    if (perSplit[s]->empty())
      continue;
    std::string flag = std::string("--") + names[s] + "-data-path";
    if (!sources.blend.empty())
      return fail(flag + " gives a split its own datasets; --data and --data-path are cut by "
                         "--split: use one way"),
             false;
    std::vector<std::string> list(perSplit[s]->begin(), perSplit[s]->end());
    if (!mt::parseDataBlend(list, sources.splits[s], error))
      return fail(flag + ": " + error), false;
  }
  if (sources.blend.empty() && split.getNumOccurrences())
    return fail("--split cuts --data or --data-path; the datasets of --train-data-path, "
                "--valid-data-path and --test-data-path are used whole"),
           false;
  return true;
}

} // namespace

int fail(const std::string &message) {
  std::fprintf(stderr, "mt-run: error: %s\n", message.c_str());
  return 1;
}

bool parseOptions(int argc, char **argv, Options &o) {
  mt::showOnlyInHelp({&runCategory});
  std::vector<std::string> words = expandListFlags(argc, argv);
  std::vector<const char *> args;
  for (const std::string &word : words)
    args.push_back(word.c_str());
  if (!cl::ParseCommandLineOptions(
          static_cast<int>(args.size()), args.data(),
          "mt-run: trains a model from an mtc plan\n\n"
          "  mt-run PLAN --data PATH [options]\n  mt-run PLAN --dump\n\n"
          "Plans for several ranks start one thread per rank, or run one rank per process\n"
          "under mpirun -np N / srun.\n",
          &llvm::errs()))
    return false;
  if ((trainIters.getNumOccurrences() && !atLeast(trainIters, 1)) || !atLeast(evalInterval, 0) ||
      !atLeast(evalIters, 1) || !atLeast(logInterval, 1) || !atLeast(maxSkipped, 0) ||
      !atLeast(saveInterval, 0) || !atLeast(saveKeep, 0))
    return false;
  for (const cl::opt<double> *peak : {&peakBandwidth, &peakTflops})
    if (peak->getNumOccurrences() && !(*peak > 0)) {
      fail("--" + peak->ArgStr.str() + " needs a positive number");
      return false;
    }
  if (!(commTimeout > 0)) {
    fail("--comm-timeout needs a positive number of seconds");
    return false;
  }
  if (!injectFault.empty()) {
    long long r = -1, st = 0;
    char kind[8] = {}, tail = 0;
    if (std::sscanf(injectFault.c_str(), "%7[a-z]:%lld:%lld%c", kind, &r, &st, &tail) != 3 ||
        r < 0 || st < 1 || (std::string(kind) != "kill" && std::string(kind) != "sigterm")) {
      fail("--inject-fault needs kill:RANK:STEP or sigterm:RANK:STEP, got '" + injectFault + "'");
      return false;
    }
    (std::string(kind) == "kill" ? o.killRank : o.signalRank) = r;
    (std::string(kind) == "kill" ? o.killStep : o.signalStep) = st;
  }
  if (evalOnly && (!save.empty() || !record.empty() || trainIters.getNumOccurrences())) {
    fail("--eval-only trains nothing: drop --save, --record and --train-iters");
    return false;
  }
  if (planPath.empty()) {
    fail("no plan given (mt-run PLAN --data PATH; mt-run --help)");
    return false;
  }
  o.plan = planPath;
  if (!dataSourcesOf(o.data))
    return false;
  o.dataCachePath = dataCachePath;
  o.vocabFile = vocabFile;
  o.tokenizerModel = tokenizerModel;
  o.vocabExtraIds = vocabExtraIds;
  o.dump = dump;
  o.split = split;
  o.trainIters = trainIters;
  o.evalInterval = evalInterval;
  o.evalIters = evalIters;
  o.evalOnly = evalOnly;
  o.evalItersGiven = evalIters.getNumOccurrences() > 0;
  o.logInterval = logInterval;
  o.maxSkipped = maxSkipped;
  o.logDir = logDir;
  o.metricsFile = metricsFile;
  o.record = record;
  o.save = save;
  o.saveInterval = saveInterval;
  o.saveKeep = saveKeep;
  o.asyncSave = asyncSave;
  o.load = load;
  o.timeline = timeline;
  o.measureArena = measureArena;
  o.overlapGradReduce = overlapGradReduce;
  o.overlapTpComm = overlapTpComm;
  o.collectives = collectivesOn;
  o.profile = profile || reportKernels != mt::KnownGpu::None;
  o.reportKernels = reportKernels;
  o.peakBandwidth = peakBandwidth;
  o.peakTflops = peakTflops;
  o.commTimeout = commTimeout;
  return true;
}

} // namespace mtrun
