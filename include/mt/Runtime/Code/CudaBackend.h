//===- CudaBackend.h - running a plan's code on a CUDA GPU -----*- C++ -*-===//
//
// A plan compiled with --target=cuda holds host code (a shared object that
// launches kernels and calls cuBLAS) and kernel images (PTX, cubin). The
// host code's mgpu* and mt_blas_* calls are served by libmt-cuda-runtime.so,
// which this class loads (RTLD_GLOBAL, before the plan's code) only for such
// plans: mt-run itself needs no CUDA library.
//
// Buffers are managed memory: kernels use them where they are, and the
// trainer reads losses and writes batches on the host after synchronize().
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CODE_CUDABACKEND_H
#define MT_RUNTIME_CODE_CUDABACKEND_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Abi.h"
#include "mt/Runtime/Code/CpuModule.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mt {

/// Whether the plan's code is for CUDA (it has kernel images).
bool planTargetsCuda(const plan::Plan &plan);

class CudaBackend : public BufferMemory {
public:
  /// Loads the CUDA runtime library ($MT_CUDA_RUNTIME, else
  /// ../lib/libmt-cuda-runtime.so next to the running program, else the
  /// library path), opens the GPU and registers the plan's kernel images.
  /// Null with `error` when this machine cannot run the plan. A process
  /// driving several ranks as threads passes each thread's `localRank`: it
  /// takes GPU localRank modulo the GPUs the process sees (unless
  /// MT_CUDA_DEVICE names one for all).
  static std::unique_ptr<CudaBackend> load(const plan::Plan &plan, std::string &error,
                                           int localRank = -1);

  void *allocate(size_t bytes, std::string &error) override;
  void release(void *pointer) override;
  /// Waits for the calling thread's GPU work; false with its first failure.
  bool synchronize(std::string &error);
  /// Zeroes memory on the GPU, queued after the calling thread's work (the
  /// pages stay on the GPU); failures surface at synchronize().
  void zero(void *pointer, size_t bytes);
  /// `height` rows of `width` bytes, `srcPitch` apart, to rows `dstPitch`
  /// apart, queued on `stream` (null: after the calling thread's work);
  /// false with the reason.
  bool copy2d(void *stream, void *dst, size_t dstPitch, const void *src, size_t srcPitch,
              size_t width, size_t height, std::string &error);
  /// Binds the calling thread (a rank's) to the GPU.
  bool bindThread(std::string &error);
  /// The calling thread's stream (a CUstream), where NCCL queues its
  /// collectives behind the thread's kernels.
  void *stream();
  /// The calling thread's side stream `index` (< kSideStreams): NCCL work
  /// that must not wait behind the thread's own, nor block it. Null with
  /// `error` when it cannot be made.
  static constexpr int kSideStreams = 16;
  void *sideStream(int index, std::string &error);
  /// Makes stream `waiting` wait for the work queued on stream `on` so far.
  bool streamWait(void *waiting, void *on, std::string &error);
  /// Waits for a stream's queued work; false with its failure.
  bool synchronizeStream(void *stream, std::string &error);
  /// When the current wait in synchronize() or synchronizeStream() began
  /// (steady-clock seconds), 0 outside one: the NCCL watchdog's clock.
  double waitingSince() const { return waitingSince_; }
  /// "NVIDIA H100 80GB HBM3 (sm_90)".
  std::string device() const;
  /// The GPU's PCI bus id, "0000:1b:00.0" ("stand-in" for the tests' runtime).
  std::string busId() const;
  /// The most bytes of buffers allocated through this backend at once so
  /// far (what mt-run holds in GPU memory; the CUDA runtime's and cuBLAS's
  /// own memory are not counted).
  int64_t peakAllocatedBytes() const;

  /// Kernel and GEMM timing (mt-run --profile): start from zero, pause,
  /// resume; what was timed, after synchronize().
  enum class Profiling {
    Pause = MT_ABI_PROFILE_PAUSE,
    Start = MT_ABI_PROFILE_START,
    Resume = MT_ABI_PROFILE_RESUME
  };
  void profile(Profiling mode);
  struct ProfileEntry {
    std::string name; // a kernel's, or "gemm <types> MxNxK <ops>"
    int64_t calls = 0;
    double ms = 0;
    double flops = 0; // GEMMs
  };
  std::vector<ProfileEntry> profileEntries() const;

private:
  struct Api;
  std::unique_ptr<Api> api_;
  mutable std::mutex mutex_;
  std::map<void *, size_t> sizes_;
  int64_t allocated_ = 0, peak_ = 0;
  std::atomic<double> waitingSince_{0};
  CudaBackend();

public:
  ~CudaBackend() override;
};

} // namespace mt

#endif // MT_RUNTIME_CODE_CUDABACKEND_H
