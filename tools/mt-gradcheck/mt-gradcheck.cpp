//===- mt-gradcheck.cpp - compiled gradients vs central finite differences -===//
//
// Compiles a model's forward function and its derived training step to
// native code, then compares every parameter's gradient with central finite
// differences of the compiled forward loss. Meant for f64 models
// (examples/gen_gpt.py gpt-micro-f64); exits 1 when any element disagrees.
//
//===----------------------------------------------------------------------===//
#include "mt/Analysis/ModelInfo.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Runtime/Code/CpuModule.h"
#include "mt/Support/HelpOptions.h"
#include "mt/Target/CPU/SharedObject.h"
#include "mt/Tools/Registration.h"
#include "mt/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("mt-gradcheck options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.mlir>"), cl::Required,
                                          cl::cat(category));
static cl::opt<int64_t> microBatch("micro-batch-size", cl::desc("the batch checked"), cl::init(2),
                                   cl::cat(category));
static cl::opt<int64_t> seqLength("seq-length",
                                  cl::desc("tokens per sequence (0: the position table's size)"),
                                  cl::init(0), cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::desc("seed of the random inputs"), cl::init(1),
                              cl::cat(category));
static cl::opt<unsigned> samples("samples", cl::desc("elements checked per parameter (0: all)"),
                                 cl::init(0), cl::cat(category));
static cl::opt<double> epsilon("epsilon", cl::desc("finite-difference step"), cl::init(1e-5),
                               cl::cat(category));
static cl::opt<double> tolerance("tolerance", cl::desc("relative tolerance"), cl::init(1e-6),
                                 cl::cat(category));
static cl::opt<double> absTolerance("abs-tolerance", cl::desc("absolute tolerance"), cl::init(1e-9),
                                    cl::cat(category));
static cl::opt<bool> printValues("print-values",
                                 cl::desc("print each checked element's two gradients"),
                                 cl::cat(category));

namespace {

struct ArgInfo {
  std::vector<int64_t> shape;
  Type element;
  std::optional<mt::ParamInfo> param;
};

int64_t bytesOf(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

double readAt(mt::Buffer &b, Type t, int64_t i) {
  return t.isF64() ? b.as<double>()[i] : b.as<float>()[i];
}
void writeAt(mt::Buffer &b, Type t, int64_t i, double v) {
  if (t.isF64())
    b.as<double>()[i] = v;
  else
    b.as<float>()[i] = static_cast<float>(v);
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mt-gradcheck: error: " << message << "\n";
  return 1;
}

/// Lowers the module to native code and loads it; `arenaBytes` receives
/// the largest arena a function takes. False after printing why.
bool compileModule(MLIRContext &context, ModuleOp module, int64_t &arenaBytes,
                   mt::CpuModule &compiled) {
  std::string error;
  PassManager bufferize(&context), lower(&context);
  if (failed(mt::buildBufferizePipeline(bufferize)) || failed(bufferize.run(module)))
    return false;
  // Every function takes its arena last; one as large as the largest.
  arenaBytes = 0;
  for (auto fn : module.getOps<func::FuncOp>())
    if (auto bytes = fn->getAttrOfType<IntegerAttr>(mt::kArenaBytesAttrName))
      arenaBytes = std::max<int64_t>(arenaBytes, bytes.getInt());
  if (failed(mt::buildBuffersToLLVMPipeline(lower)) || failed(lower.run(module)))
    return false;
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("mt-gradcheck", dir))
    return fail("cannot create a temporary directory: " + ec.message()), false;
  std::string soPath = (dir + "/model.so").str();
  if (!mt::emitSharedObject(module, soPath, error))
    return fail(error), false;
  bool loaded = compiled.load(soPath, error);
  llvm::sys::fs::remove(soPath);
  llvm::sys::fs::remove(dir);
  if (!loaded)
    return fail(error), false;
  return true;
}

/// Parameters from their initializers (ones/zeros perturbed so no gradient
/// is special), random tokens and labels, a random loss mask.
std::vector<std::unique_ptr<mt::Buffer>> makeInputs(const std::vector<ArgInfo> &args, int64_t vocab,
                                                    std::mt19937_64 &rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::unique_ptr<mt::Buffer>> inputs;
  for (const ArgInfo &a : args) {
    auto b = std::make_unique<mt::Buffer>(a.shape, bytesOf(a.element));
    for (int64_t i = 0; i < b->numElements(); ++i) {
      if (a.param) {
        mt::InitKind kind = a.param->attr.getInit();
        double base = kind == mt::InitKind::ones ? 1.0 : 0.0;
        double scale = kind == mt::InitKind::normal
                           ? std::max(a.param->attr.getStd().convertToDouble(), 0.1)
                           : 0.1;
        writeAt(*b, a.element, i, base + scale * normal(rng));
      } else if (a.element.isInteger(1)) {
        // masks: mostly kept, position 0 always kept
        b->as<uint8_t>()[i] = (i == 0 || rng() % 4 != 0) ? 1 : 0;
      } else if (a.element.isInteger(32)) {
        b->as<int32_t>()[i] = static_cast<int32_t>(rng() % std::max<int64_t>(vocab, 1));
      } else if (a.element.isInteger(64)) {
        b->as<int64_t>()[i] = static_cast<int64_t>(rng() % std::max<int64_t>(vocab, 1));
      } else {
        writeAt(*b, a.element, i, (i == 0 || rng() % 5 != 0) ? 1.0 : 0.0);
      }
    }
    inputs.push_back(std::move(b));
  }
  return inputs;
}

/// Central finite differences of `samples` elements (all when 0) of one
/// parameter against its compiled gradient `g`; prints one line.
bool checkParameter(const std::string &name, mt::Buffer &value, mt::Buffer &g, Type t,
                    std::mt19937_64 &rng, const std::function<double()> &forwardLoss) {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < value.numElements(); ++i)
    indices.push_back(i);
  if (samples && indices.size() > samples) {
    std::shuffle(indices.begin(), indices.end(), rng);
    indices.resize(samples);
  }
  double worst = 0, largest = 0;
  bool ok = true;
  for (int64_t i : indices) {
    double orig = readAt(value, t, i);
    writeAt(value, t, i, orig + epsilon);
    double plus = forwardLoss();
    writeAt(value, t, i, orig - epsilon);
    double minus = forwardLoss();
    writeAt(value, t, i, orig);
    double fd = (plus - minus) / (2 * epsilon), an = readAt(g, t, i);
    if (printValues)
      std::printf("  %s[%lld] finite difference %.9g, derived %.9g\n", name.c_str(),
                  static_cast<long long>(i), fd, an);
    double diff = std::fabs(fd - an);
    double rel = diff / std::max({std::fabs(fd), std::fabs(an), 1e-300});
    largest = std::max(largest, std::fabs(an));
    worst = std::max(worst, rel);
    // Tiny gradients are judged by absolute error; the rest by relative.
    ok &= diff <= absTolerance || rel <= tolerance;
  }
  std::printf("%-22s %8zu %14.3e %14.3e  %s\n", name.c_str(), indices.size(), worst, largest,
              ok ? "ok" : "FAIL");
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mt::registerPassesAndPipelines(); // the lowering pipeline names upstream passes
  mt::showOnlyInHelp({&category});
  cl::ParseCommandLineOptions(argc, argv, "mt-gradcheck: gradients vs finite differences\n");

  DialectRegistry registry;
  mt::registerDialects(registry);
  MLIRContext context(registry);
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  PassManager pm(&context);
  mt::FrontendOptions frontend;
  frontend.microBatchSize = microBatch;
  frontend.seqLength = seqLength;
  mt::buildFrontendPipeline(pm, frontend);
  pm.addPass(mt::createUnrollLayersPass());
  pm.addPass(mt::createDeriveGradientsPass());
  if (failed(pm.run(*module)))
    return 1;

  auto models = mt::modelFunctions(*module);
  if (models.size() != 1)
    return fail("expected exactly one model function");
  func::FuncOp model = models.front();
  std::string modelName = model.getSymName().str(), gradName = modelName + "_grad";
  auto grad = module->lookupSymbol<func::FuncOp>(gradName);

  // Signature, read before lowering erases the tensor types.
  std::vector<ArgInfo> args;
  auto params = mt::collectParams(model);
  for (BlockArgument a : model.getArguments()) {
    auto t = cast<RankedTensorType>(a.getType());
    ArgInfo info{std::vector<int64_t>(t.getShape().begin(), t.getShape().end()), t.getElementType(),
                 std::nullopt};
    for (const auto &p : params)
      if (p.argNumber == a.getArgNumber())
        info.param = p;
    args.push_back(info);
  }
  // Integer inputs are ids: below the vocabulary, or the classes of the loss.
  int64_t vocab = 0;
  model.walk([&](mt::CrossEntropyOp c) {
    vocab = c.getNumClassesAttr()
                ? c.getNumClassesAttr().getInt()
                : cast<RankedTensorType>(c.getLogits().getType()).getShape().back();
  });
  model.walk([&](mt::EmbeddingOp e) {
    vocab = cast<RankedTensorType>(e.getTable().getType()).getDimSize(0);
  });
  Type lossType = cast<RankedTensorType>(model.getResultTypes()[0]).getElementType();
  std::vector<std::pair<std::vector<int64_t>, Type>> gradResults;
  for (Type t : grad.getResultTypes()) {
    auto r = cast<RankedTensorType>(t);
    gradResults.push_back({{r.getShape().begin(), r.getShape().end()}, r.getElementType()});
  }

  int64_t arenaBytes = 0;
  mt::CpuModule compiled;
  if (!compileModule(context, *module, arenaBytes, compiled))
    return 1;
  mt::Buffer arena({arenaBytes}, 1);
  std::mt19937_64 rng(seed);
  std::vector<std::unique_ptr<mt::Buffer>> inputs = makeInputs(args, vocab, rng);
  auto forwardLoss = [&]() -> double {
    mt::Buffer loss({}, bytesOf(lossType));
    std::vector<mt::Buffer *> callArgs;
    for (auto &b : inputs)
      callArgs.push_back(b.get());
    callArgs.push_back(&loss);
    callArgs.push_back(&arena);
    if (!compiled.call(modelName, callArgs, error))
      return NAN;
    return readAt(loss, lossType, 0);
  };

  std::vector<std::unique_ptr<mt::Buffer>> outputs;
  std::vector<mt::Buffer *> callArgs;
  for (auto &b : inputs)
    callArgs.push_back(b.get());
  for (auto &[shape, t] : gradResults) {
    outputs.push_back(std::make_unique<mt::Buffer>(shape, bytesOf(t)));
    callArgs.push_back(outputs.back().get());
  }
  callArgs.push_back(&arena);
  if (!compiled.call(gradName, callArgs, error))
    return fail(error);
  double loss = readAt(*outputs[0], lossType, 0), loss2 = forwardLoss();
  std::printf("loss %.12g (forward function: %.12g)\n", loss, loss2);
  if (!(std::fabs(loss - loss2) <= 1e-12 * std::max(1.0, std::fabs(loss))))
    return fail("the training step's loss differs from the forward function's");

  bool allOk = true;
  size_t out = 1;
  std::printf("%-22s %8s %14s %14s  %s\n", "parameter", "checked", "max rel err", "max |grad|",
              "result");
  for (size_t a = 0; a < args.size(); ++a) {
    if (!args[a].param)
      continue;
    mt::Buffer &value = *inputs[a];
    mt::Buffer &g = *outputs[out++];
    Type t = args[a].element;
    bool ok = checkParameter(args[a].param->name, value, g, t, rng, forwardLoss);
    allOk &= ok;
  }
  std::printf("%s\n", allOk ? "all gradients agree with finite differences"
                            : "some gradients disagree with finite differences");
  return allOk ? 0 : 1;
}
