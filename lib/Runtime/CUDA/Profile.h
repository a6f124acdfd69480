//===- Profile.h - timing each kernel and GEMM for mt-run --profile -*- C++ -*-===//
//
// While profiling is on, each launch and GEMM is bracketed by two events on
// the calling thread's stream; mt_cuda_sync, after the stream has drained,
// reads their elapsed times and adds them to a total per kernel (or per GEMM
// shape). Off, the cost is one atomic load per call.
//
//===----------------------------------------------------------------------===//
#ifndef MT_LIB_RUNTIME_CUDA_PROFILE_H
#define MT_LIB_RUNTIME_CUDA_PROFILE_H

#include <cuda.h>

#include <string>

namespace mt::cuda {

bool profiling();

/// Times the work queued on the calling thread's stream during its life.
class ProfiledSpan {
public:
  /// `name` is only called when profiling; `flops` (GEMMs) may be 0.
  template <typename NameFn> explicit ProfiledSpan(NameFn name, double flops = 0) {
    if (profiling())
      begin(name(), flops);
  }
  ~ProfiledSpan() {
    if (start_)
      end();
  }
  ProfiledSpan(const ProfiledSpan &) = delete;
  ProfiledSpan &operator=(const ProfiledSpan &) = delete;

private:
  void begin(std::string name, double flops);
  void end();
  std::string name_;
  double flops_ = 0;
  CUevent start_ = nullptr;
};

/// The kernel's name as looked up (for profiles).
void rememberKernelName(CUfunction function, const char *name);
std::string kernelName(CUfunction function);

/// Adds the calling thread's finished spans to the totals (after its stream
/// was synchronized).
void collectProfile();

} // namespace mt::cuda

#endif // MT_LIB_RUNTIME_CUDA_PROFILE_H
