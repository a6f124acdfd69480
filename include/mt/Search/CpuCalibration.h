//===- CpuCalibration.h - this machine as a cluster, measured ---*- C++ -*-===//
//
// The layout search predicts CPU plans the way it predicts GPU ones, so that
// its predictions can be checked here against mt-run. The "chip" is this
// machine's cores, shared by mt-run's rank threads; its figures are measured
// when the search starts: OpenBLAS's sgemm rate by shape (the GEMMs of CPU
// plans), the memory bandwidth of one core (the compiled loops), and the
// bandwidth and latency of mt-run's thread transport (an all-reduce between
// two rank threads).
//
//===----------------------------------------------------------------------===//
#ifndef MT_SEARCH_CPUCALIBRATION_H
#define MT_SEARCH_CPUCALIBRATION_H

#include "mt/Search/Cluster.h"

#include <string>

namespace mt {

/// This machine as `ranks` rank threads, measured now; false with `error`
/// when it cannot be.
bool measureThisMachine(int64_t ranks, Cluster &cluster, std::string &error);

} // namespace mt

#endif // MT_SEARCH_CPUCALIBRATION_H
