//===- fuzz_mt_dialect.cpp - the mt dialect's parser, verifier, frontend --===//
// An input is a model in the mt dialect: parsed, verified, and when valid
// brought through mtc's frontend pipeline (shape specialization, padding,
// the model's own checks). Errors are diagnostics, never crashes.
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    r->insert<mt::MTDialect>();
    mlir::registerAllDialects(*r);
    mlir::registerAllExtensions(*r);
    return r;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {}); // errors are expected
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  mlir::PassManager pm(&context);
  mt::FrontendOptions options;
  options.microBatchSize = 2;
  options.seqLength = 8;
  mt::buildFrontendPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
