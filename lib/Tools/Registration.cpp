//===- Registration.cpp - what the mt tools know about ---------------------===//
#include "mt/Tools/Registration.h"
#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

// The compiler lowers through many upstream dialects (linalg, bufferization,
// scf, LLVM, gpu, nvvm, ...) and their interface models; registering them
// all keeps mt-opt able to replay any stage of mtc.
void mt::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mt::MTDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates device modules to LLVM IR for NVPTX.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void mt::registerPassesAndPipelines() {
  mt::registerMTPasses();
  mt::registerMTConversionPasses();
  mt::registerPipelines();
  mlir::registerAllPasses();
}
