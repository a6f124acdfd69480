//===- KernelProfileTest.cpp - mt-run --profile's report -------------------===//
#include "mt/Runtime/Code/KernelProfile.h"

#include <gtest/gtest.h>

namespace {

mt::plan::Plan planWithTraffic() {
  mt::plan::Plan plan;
  mt::plan::CodeObject &code = *plan.add_code();
  code.set_kind(mt::plan::CodeObject::PTX);
  auto add = [&](const char *kernel, int64_t bytes, bool indirect) {
    mt::plan::KernelTraffic &t = *code.add_kernel_traffic();
    t.set_kernel(kernel);
    t.set_bytes(bytes);
    t.set_indirect(indirect);
  };
  add("softmax", 1000000, false);
  add("softmax_1", 3000000, false);
  add("embedding", 64, true);
  return plan;
}

TEST(KernelProfile, OpIsTheNameWithoutItsNumber) {
  EXPECT_EQ(mt::opOfKernel("layer_norm_grad_12"), "layer_norm_grad");
  EXPECT_EQ(mt::opOfKernel("layer_norm_grad"), "layer_norm_grad");
  EXPECT_EQ(mt::opOfKernel("sum_to_x"), "sum_to_x");
  EXPECT_EQ(mt::opOfKernel("k_"), "k_");
}

TEST(KernelProfile, KnownPeaks) {
  EXPECT_EQ(mt::peaksOf("NVIDIA H100 80GB HBM3 (sm_90)").bandwidthGBs, 3350);
  EXPECT_EQ(mt::peaksOf("NVIDIA H100 PCIe (sm_90)").bandwidthGBs, 2000);
  EXPECT_EQ(mt::peaksOf("NVIDIA H200 (sm_90)").bandwidthGBs, 4800);
  EXPECT_EQ(mt::peaksOf("NVIDIA H200 (sm_90)").tflops16, 989);
  EXPECT_EQ(mt::peaksOf("NVIDIA A100-SXM4-40GB (sm_80)").bandwidthGBs, 1555);
  EXPECT_EQ(mt::peaksOf("NVIDIA GeForce RTX 4090 (sm_89)").bandwidthGBs, 0);
}

TEST(KernelProfile, BandwidthIsBytesOverTimePerOp) {
  // Two softmax kernels: 2 launches x 1 MB and 1 x 3 MB in 2.5 ms over two
  // steps: 5 MB / 2.5 ms = 2 GB/s, 2.5 MB and 1.25 ms per step.
  std::vector<mt::CudaBackend::ProfileEntry> entries{
      {"softmax", 2, 1.5, 0},
      {"softmax_1", 1, 1.0, 0},
      {"embedding", 2, 0.5, 0},
      {"gemm bf16>f32 1000x1000x1000 NN", 4, 4.0, 8e9},
      {"unnamed", 1, 1.0, 0}};
  std::string report = mt::profileReport(entries, planWithTraffic(), 2, "NVIDIA H100 80GB HBM3",
                                         mt::peaksOf("NVIDIA H100 80GB HBM3"));
  EXPECT_NE(report.find("profile of 2 training step(s) on NVIDIA H100 80GB HBM3"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("per step: GPU time 4.000 ms = generated kernels 2.000 ms (3 launches) "
                        "+ GEMMs 2.000 ms (2 calls)"),
            std::string::npos)
      << report;
  // softmax: 1.5 launches per step, 1.25 ms, 2.5 MB, 2.0 GB/s, 0.1% of 3350.
  EXPECT_NE(report.find("softmax                               2      1.250        2.500        "
                        "2.0     0.1%"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("embedding*"), std::string::npos) << report;
  EXPECT_NE(report.find("* also reads or writes"), std::string::npos) << report;
  // Without traffic in the plan: no bandwidth.
  EXPECT_NE(report.find("unnamed                               0      0.500            -"),
            std::string::npos)
      << report;
  // 8e9 flops in 4 ms: 2 TFLOP/s, against the 16-bit peak.
  EXPECT_NE(report.find("gemm bf16>f32 1000x1000x1000 NN                     2      2.000        "
                        "2.0     0.2%"),
            std::string::npos)
      << report;
  // Floors: softmax's 2.5 MB a step at 3350 GB/s, 0.00075 ms; the GEMM's
  // 4e9 FLOPs a step at 989 TFLOP/s, 0.0040 ms; the unnamed kernel has none.
  EXPECT_NE(report.find("2.0     0.1%      0.001"), std::string::npos) << report;
  EXPECT_NE(report.find("2.0     0.2%      0.004"), std::string::npos) << report;
  EXPECT_NE(report.find("floor at the peaks: 0.005 ms a step = kernels 0.001 ms (their bytes at "
                        "the peak bandwidth) + GEMMs 0.004 ms (their FLOPs at the peak); measured "
                        "834.9x it (1 row without a floor left out)"),
            std::string::npos)
      << report;
}

TEST(KernelProfile, CountedReportGivesFloorsNotTimes) {
  std::vector<mt::CudaBackend::ProfileEntry> entries{
      {"softmax", 2, 0.002, 0}, {"gemm bf16>f32 1000x1000x1000 NN", 2, 0.004, 4e9}};
  std::string device = mt::deviceName(mt::KnownGpu::H100);
  std::string report =
      mt::profileReport(entries, planWithTraffic(), 1, device, mt::peaksOf(device), true);
  EXPECT_NE(report.find("kernel report of 1 training step(s), counted by the stand-in runtime"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("per step: 2 kernel launches + 2 GEMM calls"), std::string::npos)
      << report;
  // softmax: 2 MB at 3350 GB/s; the GEMMs: 4 GFLOP at 989 TFLOP/s.
  EXPECT_NE(report.find("softmax                               2        2.000      0.001"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("2        4.000      0.004"), std::string::npos) << report;
  EXPECT_EQ(report.find("measured"), std::string::npos) << report;
  EXPECT_EQ(report.find("ms/step"), std::string::npos) << report;
}

TEST(KernelProfile, UnknownDeviceHasNoPercentages) {
  std::vector<mt::CudaBackend::ProfileEntry> entries{{"softmax", 1, 1.0, 0}};
  std::string report = mt::profileReport(entries, planWithTraffic(), 1, "some GPU", {});
  EXPECT_NE(report.find("peaks: unknown for this device"), std::string::npos) << report;
  EXPECT_NE(report.find("1.0        -"), std::string::npos) << report;
  EXPECT_EQ(report.find("floor at the peaks"), std::string::npos) << report;
}

} // namespace
