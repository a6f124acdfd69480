//===- GemmTables.cpp - the cluster presets ---------------------------------===//
//
// Figures of the chips and nodes the presets describe, and their GEMM tables.
// The H100 and H200 tables are cuBLAS GEMMs this project measured
// (bench/gpu/results, the runbook's per-shape table; extracted by
// bench/gpu/gemm_table.py): the median share of the 989 TFLOP/s bf16 peak by
// shape (M x batch, N, K). No A100 was at hand: its preset derives its table
// from the H100's, an assumption docs/layout-search.md states and the check
// against Narayanan et al. 2021 (on A100s) puts to the test.
//
//===----------------------------------------------------------------------===//
#include "mt/Search/Cluster.h"

#include <algorithm>
#include <iterator>

namespace mt {

namespace {

// bench/gpu/gemm_table.py bench/gpu/results/2026-11-2*-h100*.log
const GemmPoint kH100Gemms[] = {
    {768, 768, 4096, 0.311},    {768, 768, 16384, 0.443},   {768, 768, 65536, 0.662},
    {768, 3072, 4096, 0.543},   {768, 3072, 16384, 0.716},  {768, 3072, 65536, 0.782},
    {1024, 1024, 4096, 0.422},  {1024, 4096, 4096, 0.631},  {2304, 768, 4096, 0.489},
    {2304, 768, 16384, 0.678},  {2304, 768, 65536, 0.676},  {3072, 768, 4096, 0.573},
    {3072, 768, 16384, 0.724},  {3072, 768, 65536, 0.788},  {3072, 1024, 4096, 0.624},
    {4096, 768, 768, 0.374},    {4096, 768, 2304, 0.597},   {4096, 768, 3072, 0.649},
    {4096, 768, 50304, 0.850},  {4096, 1024, 1024, 0.489},  {4096, 1024, 3072, 0.698},
    {4096, 1024, 4096, 0.743},  {4096, 1024, 50304, 0.894}, {4096, 2304, 768, 0.536},
    {4096, 3072, 768, 0.572},   {4096, 3072, 1024, 0.643},  {4096, 4096, 1024, 0.672},
    {4096, 50304, 768, 0.720},  {4096, 50304, 1024, 0.774}, {16384, 768, 768, 0.581},
    {16384, 768, 2304, 0.737},  {16384, 768, 3072, 0.769},  {16384, 768, 50304, 0.873},
    {16384, 2304, 768, 0.669},  {16384, 3072, 768, 0.685},  {16384, 50304, 768, 0.737},
    {49152, 64, 1024, 0.132},   {49152, 1024, 64, 0.145},   {50304, 768, 4096, 0.716},
    {50304, 768, 16384, 0.817}, {50304, 768, 65536, 0.819}, {50304, 1024, 4096, 0.795},
    {65536, 64, 1024, 0.140},   {65536, 768, 768, 0.646},   {65536, 768, 2304, 0.771},
    {65536, 768, 3072, 0.771},  {65536, 768, 50304, 0.841}, {65536, 1024, 64, 0.146},
    {65536, 2304, 768, 0.718},  {65536, 3072, 768, 0.737},  {65536, 50304, 768, 0.738},
    {196608, 64, 1024, 0.157},  {196608, 1024, 64, 0.149},  {786432, 64, 1024, 0.167},
    {786432, 1024, 64, 0.151},
};

// bench/gpu/gemm_table.py bench/gpu/results/2026-11-2*-h200*.log
const GemmPoint kH200Gemms[] = {
    {768, 768, 4096, 0.316},    {768, 768, 65536, 0.396},   {768, 3072, 4096, 0.537},
    {768, 3072, 65536, 0.476},  {2304, 768, 4096, 0.496},   {2304, 768, 65536, 0.398},
    {3072, 768, 4096, 0.551},   {3072, 768, 65536, 0.487},  {4096, 768, 768, 0.381},
    {4096, 768, 2304, 0.601},   {4096, 768, 3072, 0.654},   {4096, 768, 50304, 0.854},
    {4096, 2304, 768, 0.547},   {4096, 3072, 768, 0.582},   {4096, 50304, 768, 0.745},
    {49152, 64, 1024, 0.179},   {49152, 1024, 64, 0.182},   {50304, 768, 4096, 0.749},
    {50304, 768, 65536, 0.554}, {65536, 768, 768, 0.655},   {65536, 768, 2304, 0.762},
    {65536, 768, 3072, 0.780},  {65536, 768, 50304, 0.830}, {65536, 2304, 768, 0.735},
    {65536, 3072, 768, 0.734},  {65536, 50304, 768, 0.734}, {786432, 64, 1024, 0.234},
    {786432, 1024, 64, 0.202},
};

constexpr double kGB = 1e9, kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;

/// Nodes of 8 SXM chips on NVLink, one InfiniBand NIC per chip. Bus
/// bandwidths are what NCCL's all-reduce reaches, not the links' line rates.
Cluster nvlinkNode(const std::string &name) {
  Cluster c;
  c.name = name;
  c.gpusPerNode = 8;
  c.chip.name = name;
  c.chip.kernelOverhead = 4e-6;
  c.chip.reservedBytes = static_cast<int64_t>(3 * kGiB);
  c.intraNode.latency = 2e-6;
  c.interNode.latency = 6e-6;
  return c;
}

} // namespace

std::string presetNames() { return "a100-80gb, h100-80gb, h200-141gb"; }

bool presetCluster(const std::string &name, Cluster &cluster) {
  Cluster c = nvlinkNode(name);
  if (name == "h100-80gb" || name == "h200-141gb") {
    // H100/H200 SXM: 989 TFLOP/s dense bf16, 67 f32; NVLink 4 (900 GB/s
    // both ways); NDR 400 Gb/s per chip.
    c.chip.peakFlops16 = 989e12;
    c.chip.peakFlops32 = 67e12;
    c.intraNode.bandwidth = 370 * kGB;
    c.interNode.bandwidth = 45 * kGB;
    bool h200 = name == "h200-141gb";
    c.chip.memoryBandwidth = (h200 ? 4.8e3 : 3.35e3) * kGB;
    c.chip.memoryBytes = static_cast<int64_t>((h200 ? 143771 : 81559) * kMiB);
    if (h200)
      c.chip.gemm.assign(std::begin(kH200Gemms), std::end(kH200Gemms));
    else
      c.chip.gemm.assign(std::begin(kH100Gemms), std::end(kH100Gemms));
    c.chip.gemmSource = std::string("cuBLAS measured on an ") + (h200 ? "H200" : "H100") +
                        " (bench/gpu/results, 2026-11-26/27)";
  } else if (name == "a100-80gb") {
    // A100 SXM 80GB: 312 TFLOP/s dense bf16, 19.5 f32, 2.04 TB/s; NVLink 3
    // (600 GB/s both ways); HDR 200 Gb/s per chip (as Selene, the cluster of
    // Narayanan et al. 2021).
    c.chip.peakFlops16 = 312e12;
    c.chip.peakFlops32 = 19.5e12;
    c.chip.memoryBandwidth = 2039 * kGB;
    c.chip.memoryBytes = static_cast<int64_t>(81920 * kMiB);
    c.intraNode.bandwidth = 230 * kGB;
    c.interNode.bandwidth = 22 * kGB;
    // No A100 at hand: the H100's measured rate at each shape scaled by the
    // ratio of the chips' memory bandwidths (small and thin GEMMs are bound
    // by it), at most the H100's best share of peak (large GEMMs).
    double best = 0;
    for (const GemmPoint &p : kH100Gemms)
      best = std::max(best, p.efficiency);
    for (GemmPoint p : kH100Gemms) {
      p.efficiency = std::min(best, p.efficiency * (989.0 / 312.0) * (2039.0 / 3350.0));
      c.chip.gemm.push_back(p);
    }
    c.chip.gemmSource = "the H100's measured rates scaled by memory bandwidth, at most its best "
                        "share of peak (no A100 at hand: an assumption)";
  } else {
    return false;
  }
  cluster = c;
  return true;
}

} // namespace mt
