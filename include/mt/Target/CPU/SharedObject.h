//===- SharedObject.h - LLVM-dialect module -> native .so ------*- C++ -*-===//
#ifndef MT_TARGET_CPU_SHAREDOBJECT_H
#define MT_TARGET_CPU_SHAREDOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace mt {

/// What the shared object links besides the module: the CPU's GEMMs
/// (OpenBLAS) and allocator, or nothing but the collective hooks (GPU host
/// code, whose launches and GEMMs the runtime's CUDA library provides).
enum class HostSupport { Cpu, CudaHost };

/// Translates `module` (LLVM dialect) to LLVM IR, optimizes it at
/// -O`optLevel` (0-3) for this machine's CPU, emits an object file and links
/// it into the shared object `soPath` with the system C compiler driver.
/// Returns false and sets `error` on failure.
bool emitSharedObject(mlir::ModuleOp module, const std::string &soPath, std::string &error,
                      unsigned optLevel = 3, HostSupport support = HostSupport::Cpu);

} // namespace mt

#endif // MT_TARGET_CPU_SHAREDOBJECT_H
