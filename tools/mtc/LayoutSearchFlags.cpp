//===- LayoutSearchFlags.cpp - mtc --search-layout, --explain ---------------===//
#include "LayoutSearchFlags.h"

#include "mt/Driver/LayoutSearch.h"
#include "mt/Search/Cluster.h"
#include "mt/Search/CpuCalibration.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

cl::OptionCategory &layoutSearchCategory() {
  static cl::OptionCategory category("layout search: the layout for a cluster, predicted");
  return category;
}

static cl::opt<bool> searchLayout(
    "search-layout",
    cl::desc("rank every layout of the model for the cluster of --gpus x --gpu by predicted step "
             "time; the fastest that fit are compiled for their exact memory; ends with 'best: "
             "<mtc flags>' (layout flags given fix those choices)"),
    cl::init(false), cl::cat(layoutSearchCategory()));

static cl::opt<bool> explain(
    "explain",
    cl::desc("the predicted time and memory breakdown on --gpu of the layout the flags give (with "
             "--search-layout: of the best)"),
    cl::init(false), cl::cat(layoutSearchCategory()));

static cl::opt<std::string>
    gpu("gpu",
        cl::desc("the cluster's chip and nodes: a100-80gb, h100-80gb, h200-141gb (nodes of 8 on "
                 "NVLink + InfiniBand), a cluster file (docs/layout-search.md), or cpu: this "
                 "machine's rank threads, measured at start"),
        cl::value_desc("preset|file|cpu"), cl::cat(layoutSearchCategory()));

static cl::opt<int64_t> searchTop("search-top",
                                  cl::desc("--search-layout: how many layouts to propose (5)"),
                                  cl::init(5), cl::cat(layoutSearchCategory()), cl::Hidden);

static cl::opt<int64_t> gpus("gpus", cl::desc("GPUs of the cluster (default: tp x pp x dp)"),
                             cl::init(0), cl::cat(layoutSearchCategory()));

static cl::opt<int64_t> gpusPerNode(
    "gpus-per-node",
    cl::desc("GPUs a node holds (default: the --gpu preset's); --report-parallel splits each "
             "stage's sends into those inside a node and across (ranks fill nodes in mesh order, "
             "tp fastest)"),
    cl::init(0), cl::cat(layoutSearchCategory()));

int64_t gpusPerNodeFlag() { return gpusPerNode; }

bool predictionAsked(bool reportParallel, bool planWanted, bool &asked, std::string &error) {
  asked = searchLayout || explain;
  if (asked && planWanted)
    error = std::string(searchLayout ? "--search-layout" : "--explain") +
            " prints predictions, not a plan: drop -o and --inference, and compile the layout "
            "chosen with its flags";
  else if (gpusPerNode < 0 || (gpusPerNode.getNumOccurrences() && !reportParallel && !asked))
    error = "--gpus-per-node takes a positive number of GPUs and goes with --report-parallel, "
            "--search-layout or --explain";
  else if (!asked && (gpu.getNumOccurrences() || gpus.getNumOccurrences()))
    error = "--gpu and --gpus describe the cluster for --search-layout or --explain";
  else if (asked && gpu.empty())
    error = std::string(searchLayout ? "--search-layout" : "--explain") +
            " needs the cluster's chip: --gpu=" + mt::presetNames() + ", cpu or a cluster file";
  return error.empty();
}

/// The layout choices the command line gave (mtc's own flags, found by
/// name), which a search keeps.
static mt::LayoutBounds fixedChoices(const mt::CompileSettings &s) {
  auto &options = cl::getRegisteredOptions();
  auto given = [&](const char *name) {
    auto it = options.find(name);
    return it != options.end() && it->second->getNumOccurrences() > 0;
  };
  mt::LayoutBounds b;
  b.tp = given("tp") ? s.tp : 0;
  b.pp = given("pp") ? s.pp : 0;
  b.dp = given("dp") || given("world-size") ? s.dp : 0;
  b.virtualStages = given("virtual-stages") ? s.virtualStages : 0;
  b.microBatch = given("micro-batch-size") ? s.microBatchSize : 0;
  if (given("sp")) // the flag itself: settings drop it where tp is 1
    b.sequenceParallel = static_cast<cl::opt<bool> *>(options["sp"])->getValue();
  if (given("distributed-optimizer"))
    b.distributedOptimizer = s.distributedOptimizer;
  if (given("recompute-granularity"))
    b.recompute = mt::layoutOf(s).recompute;
  return b;
}

int runPrediction(mlir::ModuleOp parsed, mt::CompileSettings settings) {
  mt::LayoutBounds fixed = fixedChoices(settings);
  std::string error;
  mt::Cluster cluster;
  int64_t count = gpus ? static_cast<int64_t>(gpus) : settings.tp * settings.pp * settings.dp;
  bool cpu = gpu == "cpu";
  if (cpu ? !mt::measureThisMachine(count, cluster, error)
          : !mt::makeCluster(gpu, count, gpusPerNode, cluster, error)) {
    errs() << "mtc: error: " << error << "\n";
    return 1;
  }
  // What depends on the target is chosen as for the cluster's chips.
  settings.target = cpu ? mt::TargetKind::Cpu : mt::TargetKind::Cuda;
  bool ok;
  if (searchLayout) {
    mt::LayoutSearchOptions options;
    options.cluster = cluster;
    options.fixed = fixed;
    options.explain = explain;
    options.top = std::max<int64_t>(searchTop, 1);
    ok = mt::searchLayouts(parsed, settings, options, outs(), error);
  } else {
    ok = mt::explainLayout(parsed, settings, cluster, outs(), error);
  }
  if (!ok)
    errs() << "mtc: error: " << error << "\n";
  return ok ? 0 : 1;
}
