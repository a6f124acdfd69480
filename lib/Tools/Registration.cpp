//===- Registration.cpp - what the mt tools know about ---------------------===//
#include "mt/Tools/Registration.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/Passes.h"

void mt::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mt::MTDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect, mlir::linalg::LinalgDialect,
                  mlir::scf::SCFDialect, mlir::memref::MemRefDialect,
                  mlir::math::MathDialect>();
}

void mt::registerPassesAndPipelines() {
  mt::registerMTPasses();
  mt::registerPipelines();
  mlir::registerTransformsPasses();
}
