//===- KernelProfile.h - mt-run --profile's report ----------------*- C++ -*-===//
//
// What each generated kernel and each GEMM took on the GPU, per training
// step: kernels grouped by the op they compute (mt-describe-kernels names
// them), with the bandwidth they reached (the bytes they must move, from the
// plan, over their time) against the device's peak, and GEMMs by shape with
// their TFLOP/s. docs/benchmarks.md keeps the numbers.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CODE_KERNELPROFILE_H
#define MT_RUNTIME_CODE_KERNELPROFILE_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Code/CudaBackend.h"

#include <string>
#include <vector>

namespace mt {

/// A device's peaks, 0 when unknown.
struct DevicePeaks {
  double bandwidthGBs = 0; // HBM, GB/s (1e9 bytes)
  double tflops16 = 0;     // dense bf16/fp16 tensor cores
  double tflops32 = 0;     // fp32 without TF32 (what fp32 plans use)
};

/// Datasheet peaks of the GPUs the project targets, by the device's name
/// ("NVIDIA H100 80GB HBM3"); zeros for others.
DevicePeaks peaksOf(const std::string &device);

/// The GPUs a report can name without one at hand (mt-run --report-kernels).
enum class KnownGpu { None, A100, H100, H200 };
/// Its device name as the driver gives it ("NVIDIA H100 80GB HBM3").
std::string deviceName(KnownGpu gpu);

/// The op a kernel computes: its name without mt-describe-kernels' "_<n>".
std::string opOfKernel(const std::string &kernel);

/// The report of `entries` timed over `steps` training steps of `plan`.
/// `counted`: the entries come from the stand-in runtime, which runs
/// nothing: the report gives launches, bytes, FLOPs and each one's floor
/// at `peaks`, no times.
std::string profileReport(const std::vector<CudaBackend::ProfileEntry> &entries,
                          const plan::Plan &plan, int64_t steps, const std::string &device,
                          const DevicePeaks &peaks, bool counted = false);

} // namespace mt

#endif // MT_RUNTIME_CODE_KERNELPROFILE_H
