//===- CudaState.h - what the CUDA runtime library keeps -------*- C++ -*-===//
//
// libmt-cuda-runtime.so is what a plan compiled for CUDA calls: the mgpu*
// functions MLIR's gpu-to-llvm lowering emits (module loads and kernel
// launches), mt_blas_gemm_* (cuBLAS), and the mt_cuda_* functions mt-run
// uses (images, memory, synchronization); mt/Runtime/Abi.h declares the
// last two, so their definitions here must match it. mt-run loads it only for such
// plans, so mt-run itself never needs the CUDA driver.
//
// Failures cannot unwind through compiled code: each is recorded (the first
// of a thread since its last synchronization, or of a module load) and
// reported by mt_cuda_sync, which the runtime calls after every compiled
// function.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_RUNTIME_CUDA_CUDASTATE_H
#define MT_LIB_RUNTIME_CUDA_CUDASTATE_H

#include "mt/Runtime/Abi.h"

#include <cuda.h>

#include <string>

namespace mt::cuda {

/// The calling thread's GPU, its primary context made current on the
/// thread: MT_CUDA_DEVICE if set, else the thread's local rank (below, or
/// the process's under mpirun) modulo the GPUs the process sees. False
/// with the reason recorded.
bool bindThread();

/// The calling thread runs rank `index` of the ranks this process drives
/// (rank threads): it takes GPU index modulo their number at its binding.
/// No effect once the thread is bound.
void useLocalRank(int index);

/// The calling thread's stream: every launch and GEMM of a rank runs on it,
/// in program order.
CUstream threadStream();

/// The calling thread's side stream `index` (< 16), made on first use
/// (non-blocking, like the thread's stream); null with the failure recorded.
CUstream sideStream(int index);

/// "sm_90" for the calling thread's device (empty when it has none).
const std::string &deviceArch();
const std::string &deviceName();
const std::string &deviceBusId();

/// Records `what` failing with `result` for the calling thread (first one
/// wins); returns false so callers can `return record(...)`.
bool record(const std::string &what, CUresult result);
bool recordMessage(const std::string &message);
/// Takes (and clears) the calling thread's first failure, and any module
/// load failure; empty when none.
std::string takeError();
/// Records a failure every thread should see (a module that did not load).
void recordGlobal(const std::string &message);

} // namespace mt::cuda

#endif // MT_LIB_RUNTIME_CUDA_CUDASTATE_H
