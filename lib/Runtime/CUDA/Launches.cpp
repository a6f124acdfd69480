//===- Launches.cpp - kernel launches from compiled host code --------------===//
//
// gpu-to-llvm lowers each synchronous gpu.launch_func to: create a stream,
// launch, synchronize, destroy. Here every launch of a thread goes to that
// thread's one stream, in order, and the synchronization waits for the
// runtime's mt_cuda_sync after the compiled function returns: the host code
// in between never reads device memory (mt-map-to-gpu made sure), so
// nothing needs the results earlier.
//
//===----------------------------------------------------------------------===//
#include "CudaState.h"
#include "Profile.h"

#include <cstdint>

extern "C" {

void *mgpuStreamCreate() { return mt::cuda::threadStream(); }

void mgpuStreamDestroy(void *) {}

void mgpuStreamSynchronize(void *) {}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  if (!function)
    return; // a failed load or lookup, recorded already
  mt::cuda::ProfiledSpan span(
      [&] { return mt::cuda::kernelName(static_cast<CUfunction>(function)); });
  CUresult r = cuLaunchKernel(static_cast<CUfunction>(function), static_cast<unsigned>(gridX),
                              static_cast<unsigned>(gridY), static_cast<unsigned>(gridZ),
                              static_cast<unsigned>(blockX), static_cast<unsigned>(blockY),
                              static_cast<unsigned>(blockZ), static_cast<unsigned>(smem),
                              static_cast<CUstream>(stream), params, extra);
  if (r != CUDA_SUCCESS)
    mt::cuda::record("a kernel launch (grid " + std::to_string(gridX) + ", block " +
                         std::to_string(blockX) + ")",
                     r);
}

} // extern "C"
