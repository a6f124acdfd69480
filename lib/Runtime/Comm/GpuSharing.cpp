//===- GpuSharing.cpp - ranks that would share a GPU under NCCL -----------===//
#include "mt/Runtime/Comm/GpuSharing.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>

namespace mt {

namespace {
constexpr size_t kPlaceBytes = 256;
} // namespace

std::string gpuPlace(const std::string &busId) {
  char host[128] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0)
    std::strcpy(host, "?");
  // Containers on different machines may share a host name: the kernel's
  // boot id tells the machines apart (NCCL's host hash uses it too).
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return std::string(host) + " " + (boot.empty() ? "-" : boot) + " " + busId;
}

bool gatherGpuPlaces(Communicator &host, const std::string &mine, std::vector<std::string> &all,
                     std::string &error) {
  int64_t ranks = host.size();
  Group world{{}, "world"};
  for (int64_t r = 0; r < ranks; ++r)
    world.ranks.push_back(r);
  // Fixed-size records: the transports gather equal pieces.
  constexpr int64_t words = kPlaceBytes / sizeof(int32_t);
  std::vector<int32_t> record(words, 0), records(static_cast<size_t>(ranks * words));
  std::memcpy(record.data(), mine.data(), std::min(mine.size(), kPlaceBytes - 1));
  if (!host.allGather(world, record.data(), records.data(), words, ElementType::I32,
                      "each rank's GPU", error))
    return false;
  all.clear();
  for (int64_t r = 0; r < ranks; ++r) {
    const char *text = reinterpret_cast<const char *>(records.data() + r * words);
    all.emplace_back(text, strnlen(text, kPlaceBytes));
  }
  return true;
}

std::string sharedGpuError(const std::vector<std::string> &placeOfRank) {
  std::map<std::string, size_t> first;
  for (size_t r = 0; r < placeOfRank.size(); ++r) {
    auto [it, fresh] = first.emplace(placeOfRank[r], r);
    if (fresh)
      continue;
    const std::string &place = placeOfRank[r];
    // "host [boot-id] bus-id"
    size_t first = place.find(' '), last = place.rfind(' ');
    std::string host = place.substr(0, first);
    std::string bus = last == std::string::npos ? "" : place.substr(last + 1);
    return "ranks " + std::to_string(it->second) + " and " + std::to_string(r) +
           " would share the GPU " + bus + " on " + host +
           ", and NCCL needs a GPU per rank: run at most as many ranks on a machine as it has "
           "GPUs (processes under mpirun, or rank threads, each takes the GPU of its local "
           "rank; MT_CUDA_DEVICE gives all of a process's ranks one GPU, CUDA_VISIBLE_DEVICES "
           "chooses which it sees), or use --collectives=host";
  }
  return "";
}

} // namespace mt
