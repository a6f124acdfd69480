//===- DetectGpu.h - is there a CUDA GPU here? -----------------*- C++ -*-===//
#ifndef MT_TARGET_CUDA_DETECTGPU_H
#define MT_TARGET_CUDA_DETECTGPU_H

namespace mt {

/// CUDA devices the driver reports on this machine; 0 without a driver
/// (libcuda.so.1 is looked up at run time, so nothing links against it).
int countCudaDevices();

} // namespace mt

#endif // MT_TARGET_CUDA_DETECTGPU_H
