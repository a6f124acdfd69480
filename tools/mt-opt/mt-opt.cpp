//===- mt-opt.cpp - mlir-opt with the mt dialect, passes and pipelines -----===//
#include "mt/Tools/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mt::registerDialects(registry);
  mt::registerPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "mt optimizer driver\n", registry));
}
