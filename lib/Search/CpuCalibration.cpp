//===- CpuCalibration.cpp - this machine as a cluster, measured -------------===//
#include "mt/Search/CpuCalibration.h"

#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/ThreadTransport.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <vector>

namespace mt {

namespace {

using Clock = std::chrono::steady_clock;

/// Seconds one call of `f` takes: the best of repeated runs, each batch of
/// calls at least a few milliseconds.
template <typename F> double secondsPerCall(F f) {
  f(); // warm
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    int calls = 0;
    auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < 0.02) {
      f();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    best = std::min(best, elapsed / calls);
  }
  return best;
}

double sgemmRate(int64_t m, int64_t n, int64_t k) {
  std::vector<float> a(static_cast<size_t>(m * k), 0.5f), b(static_cast<size_t>(k * n), 0.25f),
      c(static_cast<size_t>(m * n), 0.0f);
  double s = secondsPerCall([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k), b.data(),
                static_cast<int>(n), 0.0f, c.data(), static_cast<int>(n));
  });
  return 2.0 * static_cast<double>(m * n * k) / s;
}

/// Bytes/s one core reads and writes copying a buffer larger than caches.
double copyBandwidth() {
  size_t bytes = size_t{64} << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double s = secondsPerCall([&] { std::memcpy(to.data(), from.data(), bytes); });
  return 2.0 * static_cast<double>(bytes) / s;
}

/// Seconds an all-reduce of `floats` takes between 2 rank threads over
/// mt-run's thread transport (the best of a few), or a negative number when
/// it fails.
double allReduceSeconds(int64_t floats) {
  ThreadWorld world(2);
  ThreadTransport t0(world, 0), t1(world, 1);
  Communicator c0(t0, 30), c1(t1, 30);
  Group group{{0, 1}, "calibration"};
  std::vector<float> x0(static_cast<size_t>(floats), 1.0f), x1(x0);
  const int rounds = floats > 4096 ? 20 : 400;
  bool ok1 = true;
  std::thread peer([&] {
    std::string error;
    for (int i = 0; i < rounds + 2 && ok1; ++i)
      ok1 = c1.allReduce(group, x1.data(), floats, ElementType::F32, ReduceOp::Sum, "x", error);
  });
  std::string error;
  bool ok0 = true;
  double best = 1e30;
  for (int i = 0; i < rounds + 2 && ok0; ++i) {
    auto start = Clock::now();
    ok0 = c0.allReduce(group, x0.data(), floats, ElementType::F32, ReduceOp::Sum, "x", error);
    if (i >= 2) // the first two warm the buffers
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  peer.join();
  return ok0 && ok1 ? best : -1;
}

} // namespace

bool measureThisMachine(int64_t ranks, Cluster &cluster, std::string &error) {
  if (ranks < 1) {
    error = "--gpus must be at least 1";
    return false;
  }
  Cluster c;
  c.gpus = c.gpusPerNode = ranks;
  int64_t cores = std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
  c.chip.cores = static_cast<double>(cores);
  // Plans call the same OpenBLAS: as many threads a GEMM as it takes here
  // (OPENBLAS_NUM_THREADS=1 gives each rank thread one core).
  c.chip.gemmThreads = std::max(1, openblas_get_num_threads());
  c.chip.name = "cpu";
  // sgemm by shape: the sizes of small models' GEMMs (rows = tokens).
  double best = 0;
  for (int64_t m : {64, 256, 1024, 4096})
    for (int64_t n : {64, 256, 1024})
      for (int64_t k : {64, 256, 1024}) {
        double rate = sgemmRate(m, n, k);
        best = std::max(best, rate);
        c.chip.gemm.push_back({m, n, k, rate});
      }
  for (GemmPoint &p : c.chip.gemm)
    p.efficiency /= best;
  c.chip.peakFlops16 = c.chip.peakFlops32 = best; // 16-bit GEMMs run in sgemm too
  c.chip.memoryBandwidth = copyBandwidth();
  c.chip.kernelOverhead = 1e-6;
  c.chip.gemmSource = "OpenBLAS sgemm measured at start";
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) {
    error = "cannot read this machine's memory size";
    return false;
  }
  // The rank threads share the memory; a tenth is left to the rest.
  c.chip.memoryBytes = static_cast<int64_t>(pages) * pageSize / ranks;
  c.chip.reservedBytes = c.chip.memoryBytes / 10;
  // mt-run's thread transport, measured: an all-reduce over 2 ranks is 2
  // ring steps moving the buffer once, so a tiny one gives the latency and
  // a large one the bandwidth.
  int64_t large = int64_t{1} << 20; // floats
  double tiny = allReduceSeconds(16), big = allReduceSeconds(large);
  if (tiny <= 0 || big <= tiny) {
    error = "measuring the thread transport between two rank threads failed";
    return false;
  }
  c.intraNode.latency = c.interNode.latency = tiny / 2;
  c.intraNode.bandwidth = c.interNode.bandwidth = static_cast<double>(large * 4) / (big - tiny);
  c.name = "this machine";
  char text[160];
  std::snprintf(text, sizeof text,
                "cpu: %lld cores, sgemm %.1f GFLOP/s on %d thread%s, copy %.1f GB/s, thread "
                "transport %.1f GB/s and %.1f us a step",
                static_cast<long long>(cores), best / 1e9, static_cast<int>(c.chip.gemmThreads),
                c.chip.gemmThreads == 1 ? "" : "s", c.chip.memoryBandwidth / 1e9,
                c.intraNode.bandwidth / 1e9, c.intraNode.latency * 1e6);
  c.chip.name = text;
  cluster = c;
  return true;
}

} // namespace mt
