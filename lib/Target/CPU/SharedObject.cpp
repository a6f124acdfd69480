//===- SharedObject.cpp - LLVM-dialect module -> native .so ----------------===//
#include "mt/Target/CPU/SharedObject.h"
#include <algorithm>

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

namespace mt {

#ifndef MT_MLIR_LIB_DIR
#define MT_MLIR_LIB_DIR "/usr/lib/llvm-22/lib"
#endif

bool emitSharedObject(mlir::ModuleOp module, const std::string &soPath, std::string &error,
                      unsigned optLevel, HostSupport support) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  // GPU host code: gpu.binary and gpu.launch_func become mgpu* calls.
  mlir::registerGPUDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // GPU host code only launches work: any x86-64 can run it, so a plan
  // compiled here runs on the GPU machine whatever its CPU.
  std::string cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64" : "generic", features;
  if (support == HostSupport::Cpu) {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
    for (auto &f : hostFeatures)
      features +=
          (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  auto optimize = mlir::makeOptimizingTransformer(std::min(optLevel, 3u), 0, machine.get());
  if (llvm::Error e = optimize(llvmModule.get())) {
    error = llvm::toString(std::move(e));
    return false;
  }

  std::string objPath = soPath + ".o";
  {
    std::error_code ec;
    llvm::raw_fd_ostream obj(objPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      error = "cannot write " + objPath + ": " + ec.message();
      return false;
    }
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, obj, nullptr, llvm::CodeGenFileType::ObjectFile)) {
      error = "the target cannot emit object files";
      return false;
    }
    pm.run(*llvmModule);
  }

  // memrefCopy (strided copies) comes from MLIR's C runner utils.
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc) {
    error = "no C compiler driver 'cc' on PATH to link " + soPath;
    return false;
  }
  std::string libDir = MT_MLIR_LIB_DIR;
  std::vector<std::string> owned{*cc, "-shared", "-o", soPath, objPath, MT_RUNTIME_HOOKS_OBJECT};
  if (support == HostSupport::Cpu) {
    // GEMMs (through OpenBLAS) and allocation come from NativeSupport.c;
    // task loops run on the MLIR async runtime's workers; x86 rounds f32
    // to bf16 by calling __truncsfbf2 (MLIR's float16 utils), which a plan
    // using neither of the others would otherwise miss.
    for (std::string arg :
         {std::string(MT_NATIVE_SUPPORT_OBJECT), "-L" + libDir, "-Wl,-rpath," + libDir,
          std::string("-lmlir_c_runner_utils"), std::string("-lmlir_async_runtime"),
          std::string("-lmlir_float16_utils"),
          std::string("-lopenblas"), std::string("-lm")})
      owned.push_back(arg);
  }
  // GPU host code leaves mgpu* and mt_blas_* to the CUDA runtime library
  // mt-run loads first (lib/Runtime/CUDA), so the plan needs no CUDA
  // libraries of its own.
  llvm::SmallVector<llvm::StringRef> refs(owned.begin(), owned.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*cc, refs, std::nullopt, {}, 0, 0, &message);
  llvm::sys::fs::remove(objPath);
  if (rc != 0) {
    error = "linking " + soPath + " failed (exit " + std::to_string(rc) + ") " + message;
    return false;
  }
  return true;
}

} // namespace mt
