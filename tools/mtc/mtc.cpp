//===- mtc.cpp - the mt compiler driver ------------------------------------===//
//
// A thin driver: parse and verify the model, run the pipelines of
// mt/Pipelines (the same ones mt-opt registers), then report or write the
// result. Standard MLIR options (--mlir-print-ir-after-all, --mlir-timing,
// ...) apply to its pass manager.
//
//===----------------------------------------------------------------------===//
#include "ParamSummary.h"

#include "mt/Analysis/ModelInfo.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Tools/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory mtcCategory("mtc options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.mlir>"),
                                          cl::Required, cl::cat(mtcCategory));
static cl::opt<std::string> outputFilename("o", cl::desc("write the compiled IR here"),
                                           cl::value_desc("file"), cl::cat(mtcCategory));
static cl::opt<bool> summary("summary",
                             cl::desc("print every parameter and the total, then exit"),
                             cl::cat(mtcCategory));
static cl::opt<int64_t> vocabMultiple(
    "make-vocab-size-divisible-by",
    cl::desc("pad the vocabulary to a multiple of this, as Megatron does (default 1: none)"),
    cl::init(1), cl::cat(mtcCategory));

static cl::opt<int64_t> microBatchSize("micro-batch-size",
                                      cl::desc("sequences per micro-batch (default 1)"),
                                      cl::init(1), cl::cat(mtcCategory));
static cl::opt<int64_t> seqLength(
    "seq-length", cl::desc("tokens per sequence (default: the model's position table size)"),
    cl::init(0), cl::cat(mtcCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "mtc: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "mtc: compiles a transformer model written in "
                                          "the mt dialect into a training plan\n");

  if (microBatchSize < 1)
    return fail("--micro-batch-size must be >= 1, got " +
                llvm::Twine(static_cast<int64_t>(microBatchSize)));
  if (seqLength < 0)
    return fail("--seq-length must be >= 1, got " +
                llvm::Twine(static_cast<int64_t>(seqLength)));
  if (vocabMultiple < 1)
    return fail("--make-vocab-size-divisible-by must be >= 1, got " +
                llvm::Twine(static_cast<int64_t>(vocabMultiple)));

  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);

  DialectRegistry registry;
  mt::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser or verifier already printed file:line:col: error: ...

  if (mt::modelFunctions(*module).empty())
    return fail("'" + inputFilename + "' has no model function (a func.func with an "
                "argument marked mt.param)");

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return fail("invalid pass manager options");
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  pm.enableTiming(rootTiming);

  mt::FrontendOptions frontend;
  frontend.makeVocabSizeDivisibleBy = vocabMultiple;
  frontend.microBatchSize = microBatchSize;
  frontend.seqLength = seqLength;
  mt::buildFrontendPipeline(pm, frontend);
  if (failed(pm.run(*module)))
    return 1;

  if (summary) {
    mt::printParamSummary(*module, llvm::outs());
    return 0;
  }

  if (!outputFilename.empty()) {
    auto output = openOutputFile(outputFilename, &error);
    if (!output)
      return fail(error);
    module->print(output->os());
    output->keep();
  }
  return 0;
}
