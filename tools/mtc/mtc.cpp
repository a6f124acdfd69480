//===- mtc.cpp - the mt compiler driver ------------------------------------===//
//
// A thin driver: parse and verify the model, run the pipelines of
// mt/Pipelines (the same ones mt-opt registers), then report or write the
// result. Standard MLIR options (--mlir-print-ir-after-all, --mlir-timing,
// ...) apply to its pass manager.
//
//===----------------------------------------------------------------------===//
#include "FusionFlags.h"
#include "LayoutSearchFlags.h"
#include "PrecisionFlags.h"
#include "mt/Driver/InferenceCompiler.h"
#include "mt/Driver/MemoryBudget.h"
#include "mt/Driver/MemoryReport.h"
#include "mt/Driver/NativeCode.h"
#include "mt/Driver/ParamSummary.h"
#include "mt/Driver/TrainingCompiler.h"
#include "mt/Plan/InferenceMemory.h"
#include "mt/Plan/PlanEnums.h"
#include "mt/Support/HelpOptions.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Driver/PlanBuilder.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Plan/ParallelReport.h"
#include "mt/Support/Format.h"
#include "mt/Target/CUDA/DetectGpu.h"
#include "mt/Target/CUDA/KernelImages.h"
#include "mt/Tools/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <string_view>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory mtcCategory("mtc options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.mlir>"), cl::Required,
                                          cl::cat(mtcCategory));
static cl::opt<std::string>
    outputFilename("o", cl::desc("write the plan (or, with --emit=mlir, the IR) here"),
                   cl::value_desc("file"), cl::cat(mtcCategory));
enum class Emit { Plan, Mlir };
static cl::opt<Emit> emit("emit", cl::desc("what -o writes"),
                          cl::values(clEnumValN(Emit::Plan, "plan", "the training plan (default)"),
                                     clEnumValN(Emit::Mlir, "mlir", "the training step as mt IR")),
                          cl::init(Emit::Plan), cl::cat(mtcCategory));

// Memory, precision and fusion choices (FusionFlags.cpp) of the compile.
static cl::OptionCategory memoryCategory("memory: what is kept, recomputed, budgeted");

// Training options, named like Megatron's.
static cl::OptionCategory trainCategory("training options (stored in the plan)");
static cl::opt<double> lr("lr", cl::desc("peak learning rate"), cl::init(6e-4),
                          cl::cat(trainCategory));
static cl::opt<double> minLr("min-lr", cl::desc("learning rate at the end of the decay"),
                             cl::init(0.0), cl::cat(trainCategory));
static cl::opt<int64_t> warmup("lr-warmup-iters", cl::desc("linear warm-up iterations"),
                               cl::init(0), cl::cat(trainCategory));
static cl::opt<mt::plan::Optimizer::LrDecayStyle> decayStyle(
    "lr-decay-style", cl::desc("learning-rate decay after the warm-up"),
    cl::values(clEnumValN(mt::plan::Optimizer::CONSTANT, "constant", "the peak rate"),
               clEnumValN(mt::plan::Optimizer::LINEAR, "linear", "linearly to --min-lr"),
               clEnumValN(mt::plan::Optimizer::COSINE, "cosine", "a half cosine to --min-lr")),
    cl::init(mt::plan::Optimizer::COSINE), cl::cat(trainCategory));
static cl::opt<int64_t> decayIters("lr-decay-iters",
                                   cl::desc("iterations of decay (default: --train-iters)"),
                                   cl::init(0), cl::cat(trainCategory));
static cl::opt<double> clipGrad("clip-grad", cl::desc("global gradient-norm clip (0: off)"),
                                cl::init(1.0), cl::cat(trainCategory));
static cl::opt<double> weightDecay("weight-decay", cl::desc("AdamW weight decay (matrices only)"),
                                   cl::init(0.01), cl::cat(trainCategory));
static cl::opt<double> beta1("adam-beta1", cl::desc("AdamW first-moment decay"), cl::init(0.9),
                             cl::cat(trainCategory));
static cl::opt<double> beta2("adam-beta2", cl::desc("AdamW second-moment decay"), cl::init(0.999),
                             cl::cat(trainCategory));
static cl::opt<double> adamEps("adam-eps", cl::desc("AdamW denominator epsilon"), cl::init(1e-8),
                               cl::cat(trainCategory));
static cl::opt<int64_t> globalBatch("global-batch-size",
                                    cl::desc("sequences per step (default: --micro-batch-size)"),
                                    cl::init(0), cl::cat(trainCategory));
static cl::opt<int64_t> trainIters("train-iters", cl::desc("optimizer steps"), cl::init(100),
                                   cl::cat(trainCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of initialization, data order and dropout"),
                              cl::init(1234), cl::cat(trainCategory));
static cl::opt<bool> summary("summary", cl::desc("print every parameter and the total, then exit"),
                             cl::cat(mtcCategory));
static cl::opt<int64_t> vocabMultiple(
    "make-vocab-size-divisible-by",
    cl::desc("pad the vocabulary to a multiple of this, as Megatron does (default 1: none)"),
    cl::init(1), cl::cat(mtcCategory));

static cl::opt<unsigned>
    optLevel("O",
             cl::desc("LLVM optimization level of the native code, 0-3 (default 3; tests use 1 "
                      "to compile faster)"),
             cl::Prefix, cl::init(3), cl::cat(mtcCategory));

// Flags with a few named values are enums (cl::values): a value not in the
// list is refused as the command line is parsed. Each keeps its name for
// the settings and the plan.
enum class Target { Cpu, Cuda, Auto };
static cl::opt<Target>
    target("target",
           cl::desc("what the plan's code runs on (default: cuda when this machine has a CUDA "
                    "GPU, cpu otherwise)"),
           cl::values(clEnumValN(Target::Cpu, "cpu", "x86 code"),
                      clEnumValN(Target::Cuda, "cuda", "PTX and cubins, cuBLAS"),
                      clEnumValN(Target::Auto, "auto", "cuda where a GPU is, else cpu")),
           cl::init(Target::Auto), cl::cat(mtcCategory));
static cl::list<std::string>
    cudaArch("cuda-arch",
             cl::desc("--target=cuda: GPU architectures to emit PTX for (default sm_80,sm_90)"),
             cl::CommaSeparated, cl::cat(mtcCategory));
static cl::opt<std::string>
    ptxasPath("ptxas", cl::Hidden,
              cl::desc("--target=cuda: ptxas to assemble cubins with (default: the CUDA toolkit's; "
                       "'none': PTX only, compiled by the driver when the plan loads)"),
              cl::init(""), cl::cat(mtcCategory));

static cl::opt<bool> emulateGpuKernels(
    "emulate-gpu-kernels",
    cl::desc("a CPU plan whose code is the CUDA plan's kernels run on the CPU, adding in the "
             "GPU's order (warps, vectors, shuffles), to check them without a GPU"),
    cl::init(false), cl::cat(mtcCategory));

static cl::opt<int64_t> microBatchSize("micro-batch-size",
                                       cl::desc("sequences per micro-batch (default 1)"),
                                       cl::init(1), cl::cat(mtcCategory));
static cl::opt<int64_t>
    seqLength("seq-length",
              cl::desc("tokens per sequence (default: the model's position table size)"),
              cl::init(0), cl::cat(mtcCategory));
static cl::alias encoderSeqLength("encoder-seq-length", cl::desc("alias for --seq-length"),
                                  cl::aliasopt(seqLength));
static cl::opt<int64_t> decoderSeqLength(
    "decoder-seq-length",
    cl::desc("tokens per decoder sequence of an encoder-decoder model (T5; Megatron's flag)"),
    cl::init(0), cl::cat(mtcCategory));

// Parallel layout, named as in the issue and aliased to Megatron's names.
static cl::OptionCategory parallelCategory("parallelism (stored in the plan)");
static cl::opt<int64_t> tp("tp", cl::desc("tensor-parallel size (default 1)"), cl::init(1),
                           cl::cat(parallelCategory));
static cl::alias tpAlias("tensor-model-parallel-size", cl::aliasopt(tp));
static cl::opt<int64_t> pp("pp", cl::desc("pipeline-parallel size (default 1)"), cl::init(1),
                           cl::cat(parallelCategory));
static cl::alias ppAlias("pipeline-model-parallel-size", cl::aliasopt(pp));
static cl::opt<int64_t>
    dp("dp", cl::desc("data-parallel size (default: --world-size / (tp x pp), else 1)"),
       cl::init(0), cl::cat(parallelCategory));
static cl::opt<int64_t> worldSize("world-size", cl::desc("number of ranks (default tp x pp x dp)"),
                                  cl::init(0), cl::cat(parallelCategory));
static cl::opt<bool>
    sp("sp", cl::desc("sequence parallelism when tp > 1 (default on; --sp=false turns it off)"),
       cl::init(mt::TrainingDefaults::sequenceParallel), cl::cat(parallelCategory));
static cl::alias spAlias("sequence-parallel", cl::aliasopt(sp));
static cl::opt<bool> distributedOptimizer(
    "distributed-optimizer",
    cl::desc("ZeRO-1: shard the optimizer state over data-parallel ranks (reduce-scatter "
             "gradients, all-gather parameters)"),
    cl::init(false), cl::cat(parallelCategory));
static cl::alias distributedOptimizerAlias("use-distributed-optimizer",
                                           cl::aliasopt(distributedOptimizer));
static cl::opt<mt::plan::Parallelism::Schedule> schedule(
    "schedule", cl::desc("pipeline schedule"),
    cl::values(clEnumValN(mt::plan::Parallelism::ONE_F_ONE_B, "1f1b", "one forward, one backward"),
               clEnumValN(mt::plan::Parallelism::INTERLEAVED, "interleaved",
                          "interleaved 1F1B over --virtual-stages model chunks")),
    cl::init(mt::plan::Parallelism::ONE_F_ONE_B), cl::cat(parallelCategory));
static cl::opt<int64_t> virtualStages("virtual-stages",
                                      cl::desc("model chunks per pipeline stage (interleaved)"),
                                      cl::init(1), cl::cat(parallelCategory));
static cl::opt<int64_t> pipelineSplitRank(
    "pipeline-model-parallel-split-rank",
    cl::desc("encoder-decoder models (T5): pipeline ranks that hold the encoder, the rest the "
             "decoder (default: in proportion to their layers)"),
    cl::init(0), cl::cat(parallelCategory));

static cl::opt<bool> reportParallel(
    "report-parallel",
    cl::desc("print, per rank, parameter and optimizer bytes, communication per step and the "
             "pipeline bubble (with or without -o)"),
    cl::init(false), cl::cat(parallelCategory));

static cl::opt<bool> reportMemory(
    "report-memory",
    cl::desc("print, per rank, the bytes of parameters, gradients, optimizer state and "
             "activations (by layer and tensor) and the peak, before anything runs"),
    cl::init(false), cl::cat(memoryCategory));

static cl::opt<bool> outlineLayers(
    "outline-layers",
    cl::desc("compile a function's identical layers once and call that code per layer "
             "(mt-outline-layers; default true): native compile time grows with the distinct "
             "layers, not their count; false keeps them inline for a smaller arena (the report "
             "shows both exactly)"),
    cl::init(true), cl::cat(memoryCategory));

enum class DropoutMasks { Regenerate, Stored }; // mtc's flag; the pipeline takes a bool
static cl::opt<DropoutMasks> dropoutMasks(
    "dropout-masks", cl::desc("what the backward's dropout masks come from"),
    cl::values(clEnumValN(DropoutMasks::Regenerate, "regenerate", "drawn again (nothing kept)"),
               clEnumValN(DropoutMasks::Stored, "stored",
                          "a one-byte mask per element, kept (Megatron)")),
    cl::init(mt::TrainingDefaults::storeDropoutMasks ? DropoutMasks::Stored
                                                     : DropoutMasks::Regenerate),
    cl::cat(memoryCategory));

static cl::opt<bool> recomputeAllGathers(
    "recompute-all-gathers",
    cl::desc("with --sp: gather the sequence pieces again in the backward instead of keeping the "
             "gathered input of each column-parallel linear (Megatron's choice; less memory, "
             "one more all-gather per linear)"),
    cl::init(mt::TrainingDefaults::recomputeAllGathers), cl::cat(memoryCategory));

static cl::opt<bool> overlapTpComm(
    "overlap-tp-comm",
    cl::desc("with --tp: start each collective above a GEMM that does not need it "
             "and wait where its result is first read, so its data moves while the GEMM runs "
             "(mt-overlap-collectives; default on; mt-run's --overlap-tp-comm decides)"),
    cl::init(mt::TrainingDefaults::overlapCollectives), cl::cat(fusionCategory()));

static cl::opt<mt::RecomputeGranularity> recomputeGranularity(
    "recompute-granularity", cl::desc("recompute in the backward instead of keeping"),
    cl::values(MT_RECOMPUTE_GRANULARITY_VALUES),
    cl::init(mt::TrainingDefaults::recomputeGranularity), cl::cat(memoryCategory));
static cl::opt<mt::RecomputeMethod> recomputeMethod("recompute-method", cl::desc("with full"),
                                                    cl::values(MT_RECOMPUTE_METHOD_VALUES),
                                                    cl::init(mt::TrainingDefaults::recomputeMethod),
                                                    cl::cat(memoryCategory));
static cl::opt<int64_t> recomputeNumLayers("recompute-num-layers",
                                           cl::desc("with full: see --recompute-method"),
                                           cl::init(mt::TrainingDefaults::recomputeNumLayers),
                                           cl::cat(memoryCategory));

static cl::opt<std::string> memoryBudget(
    "memory-budget",
    cl::desc("bytes each rank may hold (2500000, 80GB, 1.5GiB): a plan that cannot fit is refused "
             "with its breakdown and the options that would make it fit; "
             "--recompute-granularity=auto plans under it"),
    cl::init(""), cl::cat(memoryCategory));

static cl::OptionCategory inferenceCategory("inference (mt-generate's plan)");
static cl::opt<bool> inference(
    "inference",
    cl::desc("compile the model's prefill and decode functions over KV caches for mt-generate "
             "instead of the training step (--micro-batch-size: sequences at once; "
             "--seq-length: prompt tokens a prefill call takes, default min(128, positions), or an "
             "encoder-decoder's encoder input length; --bf16/--fp16: 16-bit activations; --tp: "
             "tensor-parallel ranks)"),
    cl::init(false), cl::cat(inferenceCategory));
static cl::opt<int64_t> inferenceMaxSeqLength(
    "inference-max-seq-length",
    cl::desc("--inference: positions a KV cache holds, prompt and generated tokens together "
             "(default: the model's position table)"),
    cl::init(0), cl::cat(inferenceCategory));

static cl::opt<bool> allPrefillLogits(
    "all-prefill-logits",
    cl::desc("--inference: the prefill computes every token's logits (to check them), not only "
             "the last prompt token's, which is all generation reads"),
    cl::init(false), cl::cat(inferenceCategory), cl::Hidden);

static int fail(const llvm::Twine &message) {
  llvm::errs() << "mtc: error: " << message << "\n";
  return 1;
}

static std::string commandLineOf(int argc, char **argv) {
  return llvm::join(llvm::ArrayRef<char *>(argv, argc), " ");
}

/// --emit=mlir: the compiled module as IR.
static int writeIR(ModuleOp module) {
  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output)
    return fail(error);
  module.print(output->os());
  output->keep();
  return 0;
}

static bool refuse(const llvm::Twine &message) {
  fail(message);
  return false;
}

/// The compile's settings and code target from the command line; false
/// after printing what is wrong.
static bool settingsFromFlags(mt::CompileSettings &settings, mt::CodeTarget &code) {
  int64_t dataParallel = 0;
  std::string error;
  if (virtualStages < 1)
    return refuse("--tp, --pp and --virtual-stages must be >= 1, --dp and --world-size >= 0");
  if (!mt::CompileSettings::resolveDataParallel(tp, pp, dp, worldSize, dataParallel, error))
    return refuse(error);

  settings.vocabMultiple = vocabMultiple;
  settings.microBatchSize = microBatchSize;
  settings.seqLength = seqLength;
  settings.decoderSeqLength = decoderSeqLength;
  settings.tp = tp;
  settings.pp = pp;
  settings.dp = dataParallel;
  settings.virtualStages = virtualStages;
  settings.pipelineSplitRank = pipelineSplitRank;
  settings.globalBatch =
      globalBatch ? static_cast<int64_t>(globalBatch) : microBatchSize * dataParallel;
  settings.sequenceParallel = sp && tp > 1;
  settings.distributedOptimizer = distributedOptimizer;
  settings.schedule = schedule;
  settings.storeDropoutMasks = dropoutMasks == DropoutMasks::Stored;
  if (!applyFusionFlags(settings, error))
    return refuse(error);
  if (!applyPrecisionFlags(settings, error))
    return refuse(error);
  settings.recomputeAllGathers = recomputeAllGathers && sp && tp > 1;
  settings.granularity = recomputeGranularity;
  settings.method = recomputeMethod;
  settings.numLayers = recomputeNumLayers;
  if (!memoryBudget.empty() && (!mt::parseByteSize(memoryBudget, settings.memoryBudget, error) ||
                                settings.memoryBudget <= 0))
    return refuse("--memory-budget: " + (error.empty() ? "must be more than 0 bytes" : error));
  if (!settings.check(error))
    return refuse(error);
  code.emulateGpuKernels = emulateGpuKernels;
  if (emulateGpuKernels && target == Target::Cuda)
    return refuse("--emulate-gpu-kernels makes a CPU plan that runs the GPU's kernels on the CPU; "
                  "drop --target=cuda");
  code.cuda = target == Target::Cuda ||
              (target == Target::Auto && !emulateGpuKernels && mt::countCudaDevices() > 0);
  // What depends on the target is resolved by the training pipeline
  // (mt::resolveForTarget), so mt-opt replays it.
  settings.target = code.cuda                ? mt::TargetKind::Cuda
                    : code.emulateGpuKernels ? mt::TargetKind::EmulatedGpu
                                             : mt::TargetKind::Cpu;
  settings.overlapCollectives = overlapTpComm;
  code.mmaAttention = settings.gpuAttention == mt::GpuAttention::Mma;
  if (code.cuda) {
    if (!cudaArch.empty())
      code.chips.assign(cudaArch.begin(), cudaArch.end());
    if (!mt::checkCudaChips(code.chips, error))
      return refuse(error);
    std::string chosen = ptxasPath;
    code.ptxas = chosen.empty() ? mt::findPtxas() : chosen == "none" ? std::string() : chosen;
    if (!ptxasPath.empty() && ptxasPath != "none" && !llvm::sys::fs::can_execute(ptxasPath))
      return refuse("--ptxas: '" + ptxasPath + "' is not an executable");
  }

  return true;
}

/// Vocabulary padding and the batch's sizes, as the flags give them.
static void frontendFromFlags(ModuleOp module, mt::FrontendOptions &frontend) {
  // Megatron pads the vocabulary to a multiple of the divisor times tp, so
  // every tensor-parallel rank holds an equal, aligned piece.
  frontend.makeVocabSizeDivisibleBy = vocabMultiple * tp;
  frontend.microBatchSize = microBatchSize;
  // The parameters do not depend on the sequence: a model without a
  // position table needs no length to be counted.
  frontend.seqLength = summary && !seqLength ? 1 : static_cast<int64_t>(seqLength);
  bool placeholder = summary && !decoderSeqLength && mt::hasDecoderInputs(module);
  frontend.decoderSeqLength = placeholder ? 1 : static_cast<int64_t>(decoderSeqLength);
}

/// The training options the plan carries (schedule, optimizer, loss
/// scaling, the command line); false after printing what is wrong.
static bool trainingConfig(mt::plan::Plan &plan, const mt::CompileSettings &settings, int argc,
                           char **argv) {
  mt::plan::Config &config = *plan.mutable_config();
  if (trainIters < 1 || warmup < 0 || lr < 0 || minLr < 0 || clipGrad < 0 || adamEps <= 0 ||
      beta1 < 0 || beta1 >= 1 || beta2 < 0 || beta2 >= 1)
    return refuse("invalid training options: need --train-iters >= 1, --lr-warmup-iters >= 0, "
                  "non-negative rates, --adam-eps > 0 and Adam betas in [0, 1)");
  config.set_train_iters(trainIters);
  config.set_seed(seed);
  lossScalingConfig(config);
  config.set_command_line(commandLineOf(argc, argv));
  mt::plan::Optimizer &opt = *config.mutable_optimizer();
  opt.set_lr(lr);
  opt.set_min_lr(minLr);
  opt.set_lr_warmup_iters(warmup);
  opt.set_lr_decay_style(decayStyle);
  opt.set_lr_decay_iters(decayIters ? static_cast<int64_t>(decayIters)
                                    : static_cast<int64_t>(trainIters));
  opt.set_clip_grad(clipGrad);
  opt.set_weight_decay(weightDecay);
  opt.set_adam_beta1(beta1);
  opt.set_adam_beta2(beta2);
  opt.set_adam_eps(adamEps);
  return true;
}

/// mtc --inference: the prefill and decode functions, their memory, the plan.
static int compileForInference(ModuleOp module, const mt::CodeTarget &code, int argc, char **argv,
                               const std::function<LogicalResult(PassManager &)> &configure) {
  if (pp > 1 || dp > 1 || (worldSize > 1 && worldSize != tp) || reportParallel ||
      !memoryBudget.empty() || recomputeGranularity.getNumOccurrences())
    return fail("--inference compiles for tensor-parallel ranks only (pp and dp 1) without "
                "recomputation or --report-parallel/--memory-budget");
  if (tpComm16BitGiven())
    return fail("--tp-comm-16bit applies to training plans; inference keeps fp32 collectives");
  mt::InferenceSettings settings;
  settings.vocabMultiple = vocabMultiple;
  settings.tp = tp;
  settings.batch = microBatchSize;
  settings.prefillLength = seqLength;
  settings.decoderPrefillLength = decoderSeqLength;
  settings.capacity = inferenceMaxSeqLength;
  settings.activationType = activationTypeFromFlags();
  settings.allPrefillLogits = allPrefillLogits;
  mt::plan::Plan plan;
  std::string error;
  if (!mt::compileInference(module, settings, plan, error, configure))
    return error.empty() ? 1 : fail(error);
  if (emit == Emit::Mlir)
    return writeIR(module);
  if (outputFilename.empty() && !reportMemory)
    return 0;
  if (optLevel > 3)
    return fail("-O takes 0 to 3, got " + llvm::Twine(static_cast<unsigned>(optLevel)));
  // The arenas are known once the functions are bufferized.
  module.getContext()->printOpOnDiagnostic(true);
  if (!mt::attachNativeCode(module, plan, error, optLevel, code))
    return fail(error);
  plan.mutable_config()->set_command_line(commandLineOf(argc, argv));
  plan.mutable_config()->set_seed(seed);
  if (reportMemory) {
    mt::InferenceMemory memory;
    if (!mt::inferenceMemory(plan, memory, error))
      return fail(error);
    llvm::outs() << mt::formatInferenceMemory(plan, memory);
  }
  if (!outputFilename.empty() && !mt::writePlanFile(plan, outputFilename, error))
    return fail(error);
  return 0;
}

/// --report-parallel, --report-memory and the memory budget's verdict;
/// false (having said why) when a report fails or the plan does not fit.
static bool reportPlan(ModuleOp module, ModuleOp parsed, const mt::plan::Plan &plan,
                       const mt::CompileSettings &settings) {
  std::string error;
  if (reportParallel) {
    std::string report;
    if (!mt::parallelReport(plan, report, error, gpusPerNodeFlag()))
      return fail(error), false;
    llvm::outs() << report;
  }
  if (reportMemory || settings.memoryBudget) {
    std::string report;
    mt::MemoryPeaks peaks;
    if (!mt::memoryReport(module, plan, report, peaks, error))
      return fail(error), false;
    if (reportMemory)
      llvm::outs() << report;
    std::string refusal =
        settings.memoryBudget ? mt::budgetRefusal(report, peaks, parsed, settings) : std::string();
    if (!refusal.empty()) {
      llvm::errs() << "mtc: error: " << refusal;
      return false;
    }
  }
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  mt::registerPassesAndPipelines(); // the lowering pipeline names upstream passes
  // --help lists mtc's own options; LLVM's and MLIR's stay in --help-hidden.
  mt::showOnlyInHelp({&mtcCategory, &trainCategory, &parallelCategory, &memoryCategory,
                      &precisionCategory(), &fusionCategory(), &inferenceCategory,
                      &layoutSearchCategory()});
  cl::ParseCommandLineOptions(argc, argv,
                              "mtc: compiles a transformer model written in "
                              "the mt dialect into a training plan\n");

  mt::CompileSettings settings;
  mt::CodeTarget code;
  if (!settingsFromFlags(settings, code))
    return 1;
  bool predict = false;
  std::string error;
  if (!predictionAsked(reportParallel, inference || !outputFilename.empty(), predict, error))
    return fail(error);
  if (!inference && (allPrefillLogits || inferenceMaxSeqLength.getNumOccurrences()))
    return fail("--all-prefill-logits and --inference-max-seq-length go with --inference");
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);

  DialectRegistry registry;
  mt::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors in the model or the flags print file:line:col and the fix; the
  // IR dump is for the compiler's own failures, in the lowering (below).
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser or verifier already printed file:line:col: error: ...

  if (mt::modelFunctions(*module).empty())
    return fail("'" + inputFilename +
                "' has no model function (a func.func with an "
                "argument marked mt.param)");

  if (!outlineLayers)
    (*module)->setAttr(mt::kLayersInlineAttrName, UnitAttr::get(&context));

  // The model as parsed: options that would fit a memory budget, and the
  // layouts a search prices, are compiled from it.
  OwningOpRef<ModuleOp> parsed(module->clone());
  if (predict)
    return runPrediction(*parsed, settings);

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  auto configure = [&](PassManager &pm) -> LogicalResult {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(rootTiming);
    return success();
  };

  if (inference)
    return compileForInference(*module, code, argc, argv, configure);

  PassManager pm(&context);
  if (failed(configure(pm)))
    return fail("invalid pass manager options");
  mt::FrontendOptions frontend;
  frontendFromFlags(*module, frontend);
  mt::buildFrontendPipeline(pm, frontend);
  if (failed(pm.run(*module)))
    return 1;

  if (summary) {
    mt::printParamSummary(*module, llvm::outs());
    return 0;
  }

  if (outputFilename.empty() && !reportParallel && !reportMemory && memoryBudget.empty())
    return 0; // parsed and checked

  mt::plan::Plan plan;
  if (!mt::compileTraining(*module, /*runFrontend=*/false, settings, plan, error, configure))
    return error.empty() ? 1 : fail(error); // empty: the diagnostics said why

  if (emit == Emit::Mlir)
    return writeIR(*module);

  if (!trainingConfig(plan, settings, argc, argv))
    return 1;
  if (!reportPlan(*module, *parsed, plan, settings))
    return 1;
  if (outputFilename.empty())
    return 0;
  if (!mt::checkTrainable(plan, error))
    return fail(error);
  if (optLevel > 3)
    return fail("-O takes 0 to 3, got " + llvm::Twine(static_cast<unsigned>(optLevel)));
  context.printOpOnDiagnostic(true);
  if (!mt::attachNativeCode(*module, plan, error, optLevel, code))
    return fail(error);
  if (!mt::writePlanFile(plan, outputFilename, error))
    return fail(error);
  return 0;
}
