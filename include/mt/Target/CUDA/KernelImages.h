//===- KernelImages.h - the GPU code of a plan -----------------*- C++ -*-===//
//
// mt-lower-gpu-to-llvm leaves every kernel in one `gpu.binary` with a PTX
// object per chip. The plan keeps those images itself (PTX, and cubin when
// ptxas was there at compile time), so the runtime can pick the cubin for
// its GPU or have the driver JIT-compile the PTX, and `mt-run --dump` can
// show them. The host code then refers to the binary by name only.
//
//===----------------------------------------------------------------------===//
#ifndef MT_TARGET_CUDA_KERNELIMAGES_H
#define MT_TARGET_CUDA_KERNELIMAGES_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mt {

/// What a kernel must move per launch (mt-describe-kernels' `mt.kernels`).
struct KernelTraffic {
  std::string kernel;
  int64_t bytes = 0;
  bool indirect = false; // also gathers or scatters (not counted)
};

struct KernelImage {
  std::string module; // the gpu.binary's name ("mt_kernels")
  std::string chip;   // "sm_80"
  bool cubin = false; // PTX text otherwise
  std::string data;
  int64_t kernels = 0; // kernels in the module
  std::vector<KernelTraffic> traffic;
};

/// Moves the PTX of every `gpu.binary` in `module` into `images` and leaves
/// the binary holding one object whose bytes are its name: the runtime's
/// mgpuModuleLoad finds the images by that name. False with `error`.
bool takeKernelImages(mlir::ModuleOp module, std::vector<KernelImage> &images, std::string &error);

/// ptxas from $CUDA_HOME, $CUDA_PATH, /usr/local/cuda or PATH; empty if none.
std::string findPtxas();

/// Assembles every PTX image with `ptxas` and adds the cubins. False with
/// `error` (ptxas's own message) when one does not assemble.
bool assembleCubins(std::vector<KernelImage> &images, const std::string &ptxas, std::string &error);

} // namespace mt

#endif // MT_TARGET_CUDA_KERNELIMAGES_H
