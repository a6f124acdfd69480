//===- NativeCode.h - the plan's code: shared object, GPU kernel images -*- C++ -*-===//
#ifndef MT_DRIVER_NATIVECODE_H
#define MT_DRIVER_NATIVECODE_H

#include "mt/Plan/PlanFile.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mt {

/// What the plan's code runs on.
struct CodeTarget {
  bool cuda = false;
  /// GPU architectures to emit PTX for.
  std::vector<std::string> chips{"sm_80", "sm_90"};
  /// ptxas to assemble cubins with; empty: PTX only (the driver compiles it
  /// when the plan is loaded).
  std::string ptxas;
  /// A CPU plan whose code is the CUDA plan's kernels run on the CPU, in
  /// the GPU's order (mt-emulate-gpu-kernels), to check them without a GPU.
  bool emulateGpuKernels = false;
  /// GPU and emulated plans: 16-bit fused attention's forward on tensor cores
  /// (--gpu-attention=mma).
  bool mmaAttention = false;
};

/// Whether every chip is an architecture the CUDA backend emits for (sm_80
/// or newer); false with `error` naming the first that is not.
bool checkCudaChips(const std::vector<std::string> &chips, std::string &error);

/// Lowers the module to native code and adds it to the plan: for the CPU,
/// one shared object for this machine (LLVM -O`optLevel`); for CUDA, the
/// host code as a shared object for any x86-64 and the kernels as PTX (and
/// cubin) images per chip. False with `error` set on failure.
bool attachNativeCode(mlir::ModuleOp module, plan::Plan &out, std::string &error,
                      unsigned optLevel = 3, const CodeTarget &target = {});

} // namespace mt

#endif // MT_DRIVER_NATIVECODE_H
