//===- GpuSharing.h - ranks that would share a GPU under NCCL --*- C++ -*-===//
//
// NCCL refuses two ranks of a communicator on one GPU, and says so late and
// in its own words ("Duplicate GPU detected"). mt-run checks first, from
// each rank's machine and GPU bus id, and names the ranks and the way out.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_GPUSHARING_H
#define MT_RUNTIME_COMM_GPUSHARING_H

#include "mt/Runtime/Comm/Communicator.h"

#include <string>
#include <vector>

namespace mt {

/// "host boot-id bus-id" of this process's GPU.
std::string gpuPlace(const std::string &busId);

/// Every rank's `mine`, by rank, gathered over `host` (collective over its
/// ranks); false with `error`.
bool gatherGpuPlaces(Communicator &host, const std::string &mine, std::vector<std::string> &all,
                     std::string &error);

/// The first two ranks whose places are the same, and the way out; "" when
/// each rank has a GPU of its own.
std::string sharedGpuError(const std::vector<std::string> &placeOfRank);

} // namespace mt

#endif
