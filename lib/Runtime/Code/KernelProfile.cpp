//===- KernelProfile.cpp - mt-run --profile's report -----------------------===//
#include "mt/Runtime/Code/KernelProfile.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace mt {
namespace {

bool contains(const std::string &text, const char *part) {
  return text.find(part) != std::string::npos;
}

template <typename... Values> std::string format(const char *pattern, Values... values) {
  char line[512];
  std::snprintf(line, sizeof(line), pattern, values...);
  return line;
}

/// "56.7%", or "-" without a peak.
std::string ofPeak(double achieved, double peak) {
  return peak > 0 ? format("%.1f%%", 100.0 * achieved / peak) : "-";
}

/// "0.123" ms, or "-" when unknown (no peak, or no bytes).
std::string ms(double value) { return value >= 0 ? format("%.3f", value) : "-"; }

/// The 16-bit or fp32 peak a GEMM's operand types ("gemm bf16>f32 ...") run at.
double gemmPeak(const std::string &name, const DevicePeaks &peaks) {
  std::string types = name.substr(5, name.find(' ', 5) - 5);
  return types.rfind("bf16", 0) == 0 || types.rfind("f16", 0) == 0 ? peaks.tflops16
         : types.rfind("f32", 0) == 0                              ? peaks.tflops32
                                                                   : 0;
}

struct Row {
  std::string name;
  int64_t calls = 0;
  double ms = 0, flops = 0;
  int64_t bytes = 0; // per call summed over calls; -1 unknown
  bool indirect = false;
};

const char *const kIndirectNote =
    "* also reads or writes a buffer at data-dependent indices (a gather or scatter), not "
    "counted in MB/step\n";

/// Rows by `key`, largest first.
template <typename Key> std::vector<Row> sortedBy(const std::map<std::string, Row> &rows, Key key) {
  std::vector<Row> sorted;
  for (const auto &[name, row] : rows)
    sorted.push_back(row);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const Row &a, const Row &b) { return key(a) > key(b); });
  return sorted;
}

/// The tables of a counted report: what each op and GEMM shape moves or
/// computes a step, and its floor; largest floor first.
template <typename KernelFloor, typename GemmFloor>
std::string countedTables(const std::map<std::string, Row> &kernels,
                          const std::map<std::string, Row> &gemms, double n,
                          KernelFloor kernelFloor, GemmFloor gemmFloor) {
  bool anyIndirect = false;
  std::string out =
      format("\n%-28s %10s %12s %10s\n", "kernels by op", "launches", "MB/step", "floor ms");
  for (const Row &row : sortedBy(kernels, kernelFloor)) {
    std::string name = row.name + (row.indirect ? "*" : "");
    anyIndirect = anyIndirect || row.indirect;
    std::string mb = row.bytes < 0 ? "-" : format("%.3f", static_cast<double>(row.bytes) / n / 1e6);
    out += format("%-28s %10.0f %12s %10s\n", name.c_str(), row.calls / n, mb.c_str(),
                  ms(kernelFloor(row)).c_str());
  }
  if (anyIndirect)
    out += kIndirectNote;
  if (gemms.empty())
    return out;
  out += format("\n%-44s %8s %12s %10s\n", "GEMMs by types and shape (M x N x K)", "calls",
                "GFLOP/step", "floor ms");
  for (const Row &row : sortedBy(gemms, gemmFloor))
    out += format("%-44s %8.0f %12.3f %10s\n", row.name.c_str(), row.calls / n, row.flops / n / 1e9,
                  ms(gemmFloor(row)).c_str());
  return out;
}

/// The tables of a timed report: each op's launches, time, bytes and the
/// bandwidth reached; each GEMM shape's time and TFLOP/s; beside each its
/// floor. Slowest first.
template <typename KernelFloor, typename GemmFloor>
std::string timedTables(const std::map<std::string, Row> &kernels,
                        const std::map<std::string, Row> &gemms, double n, const DevicePeaks &peaks,
                        KernelFloor kernelFloor, GemmFloor gemmFloor) {
  auto byTime = [](const Row &row) { return row.ms; };
  bool anyIndirect = false;
  std::string out;
  out += format("\n%-28s %10s %10s %12s %10s %8s %10s\n", "kernels by op", "launches", "ms/step",
                "MB/step", "GB/s", "of peak", "floor ms");
  for (const Row &row : sortedBy(kernels, byTime)) {
    std::string name = row.name + (row.indirect ? "*" : "");
    anyIndirect = anyIndirect || row.indirect;
    if (row.bytes < 0) {
      out += format("%-28s %10.0f %10.3f %12s %10s %8s %10s\n", name.c_str(), row.calls / n,
                    row.ms / n, "-", "-", "-", "-");
      continue;
    }
    double gbs = row.ms > 0 ? static_cast<double>(row.bytes) / (row.ms * 1e6) : 0;
    out += format("%-28s %10.0f %10.3f %12.3f %10.1f %8s %10s\n", name.c_str(), row.calls / n,
                  row.ms / n, static_cast<double>(row.bytes) / n / 1e6, gbs,
                  ofPeak(gbs, peaks.bandwidthGBs).c_str(), ms(kernelFloor(row)).c_str());
  }
  if (anyIndirect)
    out += kIndirectNote;

  if (!gemms.empty()) {
    out += format("\n%-44s %8s %10s %10s %8s %10s\n", "GEMMs by types and shape (M x N x K)",
                  "calls", "ms/step", "TFLOP/s", "of peak", "floor ms");
    for (const Row &row : sortedBy(gemms, byTime)) {
      double tflops = row.ms > 0 ? row.flops / (row.ms * 1e9) : 0;
      out += format("%-44s %8.0f %10.3f %10.1f %8s %10s\n", row.name.c_str(), row.calls / n,
                    row.ms / n, tflops, ofPeak(tflops, gemmPeak(row.name, peaks)).c_str(),
                    ms(gemmFloor(row)).c_str());
    }
  }
  return out;
}
/// The slowest single kernels (not summed by op): what a change to one
/// kernel's strategy would gain, with its time per launch and bandwidth.
std::string slowestKernels(const std::vector<CudaBackend::ProfileEntry> &entries,
                           const std::map<std::string, const plan::KernelTraffic *> &traffic,
                           double n) {
  std::vector<const CudaBackend::ProfileEntry *> sorted;
  for (const CudaBackend::ProfileEntry &e : entries)
    if (e.name.rfind("gemm ", 0) != 0 && e.calls > 0)
      sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto *a, const auto *b) { return a->ms > b->ms; });
  constexpr size_t kShown = 24;
  std::string out = format("\n%-36s %10s %10s %10s %12s %10s\n", "slowest kernels", "launches",
                           "ms/step", "us/launch", "MB/launch", "GB/s");
  for (size_t i = 0; i < sorted.size() && i < kShown; ++i) {
    const CudaBackend::ProfileEntry &e = *sorted[i];
    double us = 1e3 * e.ms / static_cast<double>(e.calls);
    auto it = traffic.find(e.name);
    std::string mb = "-", gbs = "-";
    if (it != traffic.end()) {
      double bytes = static_cast<double>(it->second->bytes());
      mb = format("%.3f", bytes / 1e6);
      gbs = us > 0 ? format("%.1f", bytes / (us * 1e3)) : "-";
    }
    out += format("%-36s %10.0f %10.3f %10.1f %12s %10s\n", e.name.c_str(),
                  static_cast<double>(e.calls) / n, e.ms / n, us, mb.c_str(), gbs.c_str());
  }
  return out;
}
} // namespace

DevicePeaks peaksOf(const std::string &device) {
  // Datasheet figures (dense tensor-core bf16, fp32 without TF32).
  if (contains(device, "H200"))
    return {4800, 989, 67};
  if (contains(device, "H100")) {
    if (contains(device, "PCIe"))
      return {2000, 756, 51};
    if (contains(device, "NVL"))
      return {3900, 835, 60};
    return {3350, 989, 67};
  }
  if (contains(device, "A100")) {
    if (contains(device, "40GB"))
      return {1555, 312, 19.5};
    if (contains(device, "PCIe"))
      return {1935, 312, 19.5};
    return {2039, 312, 19.5};
  }
  return {};
}

std::string deviceName(KnownGpu gpu) {
  switch (gpu) {
  case KnownGpu::A100:
    return "NVIDIA A100-SXM4-80GB";
  case KnownGpu::H100:
    return "NVIDIA H100 80GB HBM3";
  case KnownGpu::H200:
    return "NVIDIA H200";
  case KnownGpu::None:
    break;
  }
  return "";
}

std::string opOfKernel(const std::string &kernel) {
  size_t cut = kernel.rfind('_');
  if (cut == std::string::npos || cut + 1 == kernel.size())
    return kernel;
  for (size_t i = cut + 1; i < kernel.size(); ++i)
    if (kernel[i] < '0' || kernel[i] > '9')
      return kernel;
  return kernel.substr(0, cut);
}

std::string profileReport(const std::vector<CudaBackend::ProfileEntry> &entries,
                          const plan::Plan &plan, int64_t steps, const std::string &device,
                          const DevicePeaks &peaks, bool counted) {
  std::map<std::string, const plan::KernelTraffic *> traffic;
  for (const plan::CodeObject &code : plan.code())
    for (const plan::KernelTraffic &t : code.kernel_traffic())
      traffic.emplace(t.kernel(), &t);

  std::map<std::string, Row> kernels, gemms;
  double kernelMs = 0, gemmMs = 0;
  int64_t launches = 0, gemmCalls = 0;
  for (const CudaBackend::ProfileEntry &e : entries) {
    bool gemm = e.name.rfind("gemm ", 0) == 0;
    Row &row = gemm ? gemms[e.name] : kernels[opOfKernel(e.name)];
    row.name = gemm ? e.name : opOfKernel(e.name);
    row.calls += e.calls;
    row.ms += e.ms;
    row.flops += e.flops;
    (gemm ? gemmMs : kernelMs) += e.ms;
    (gemm ? gemmCalls : launches) += e.calls;
    if (gemm)
      continue;
    auto it = traffic.find(e.name);
    if (it == traffic.end() || row.bytes < 0)
      row.bytes = -1;
    else {
      row.bytes += it->second->bytes() * e.calls;
      row.indirect = row.indirect || it->second->indirect();
    }
  }
  double n = static_cast<double>(std::max<int64_t>(steps, 1));
  // The floor of each row (ms a step): its bytes at the peak bandwidth, a
  // GEMM's FLOPs at the peak of its types; -1 when either is unknown.
  auto kernelFloor = [&](const Row &row) {
    return row.bytes >= 0 && peaks.bandwidthGBs > 0
               ? static_cast<double>(row.bytes) / n / (peaks.bandwidthGBs * 1e6)
               : -1.0;
  };
  auto gemmFloor = [&](const Row &row) {
    double peak = gemmPeak(row.name, peaks);
    return peak > 0 ? row.flops / n / (peak * 1e9) : -1.0;
  };
  double kernelFloorMs = 0, gemmFloorMs = 0;
  int64_t unknownFloors = 0;
  for (const auto *rows : {&kernels, &gemms})
    for (const auto &[name, row] : *rows) {
      double floor = rows == &kernels ? kernelFloor(row) : gemmFloor(row);
      if (floor < 0)
        ++unknownFloors;
      else
        (rows == &kernels ? kernelFloorMs : gemmFloorMs) += floor;
    }
  std::string out;
  if (counted) {
    out = format("kernel report of %lld training step(s), counted by the stand-in runtime "
                 "(nothing ran), every rank of this process; floors on %s\n",
                 static_cast<long long>(steps), device.c_str());
    out +=
        format("per step: %.0f kernel launches + %.0f GEMM calls\n", launches / n, gemmCalls / n);
  } else {
    out = format("profile of %lld training step(s) on %s, every rank of this process\n",
                 static_cast<long long>(steps), device.c_str());
    out += format("per step: GPU time %.3f ms = generated kernels %.3f ms (%.0f launches) + "
                  "GEMMs %.3f ms (%.0f calls)\n",
                  (kernelMs + gemmMs) / n, kernelMs / n, launches / n, gemmMs / n, gemmCalls / n);
  }
  if (peaks.bandwidthGBs > 0)
    out += format("peaks: %.0f GB/s memory, %.0f TFLOP/s 16-bit, %.1f TFLOP/s fp32 "
                  "(--peak-bandwidth, --peak-tflops)\n",
                  peaks.bandwidthGBs, peaks.tflops16, peaks.tflops32);
  else
    out += "peaks: unknown for this device (give --peak-bandwidth GB/s and --peak-tflops)\n";
  if (peaks.bandwidthGBs > 0) {
    double floor = kernelFloorMs + gemmFloorMs, measured = (kernelMs + gemmMs) / n;
    out += format("floor at the peaks: %.3f ms a step = kernels %.3f ms (their bytes at the "
                  "peak bandwidth) + GEMMs %.3f ms (their FLOPs at the peak)",
                  floor, kernelFloorMs, gemmFloorMs);
    if (!counted)
      out += format("; measured %.1fx it", floor > 0 ? measured / floor : 0.0);
    out += unknownFloors
               ? format(" (%lld row%s without a floor left out)\n",
                        static_cast<long long>(unknownFloors), unknownFloors == 1 ? "" : "s")
               : std::string("\n");
  }

  if (counted)
    return out + countedTables(kernels, gemms, n, kernelFloor, gemmFloor);
  out += timedTables(kernels, gemms, n, peaks, kernelFloor, gemmFloor);
  return out + slowestKernels(entries, traffic, n);
}

} // namespace mt
